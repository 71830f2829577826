// The console's accounts, one function per operation, as `waitlist admin …` calls them:
// add, list, remove, a new password (which ends the account's sessions) and two-factor enrolment.
import { Secret, TOTP } from 'otpauth';
import { checkEmail } from '../../shared/validation';
import type { Store } from '../store';
import type { AdminAccount } from '../store/types';
import { hashPassword, MIN_PASSWORD_LENGTH } from './password';

type AccountsDeps = { store: Pick<Store, 'admins'> };

/** What the authenticator app shows as the account's issuer. */
const TOTP_ISSUER = 'OrgNote site';

export type PasswordRefusal = { kind: 'too-short'; min: number } | { kind: 'not-an-address' };

function refusal(email: string, password: string): PasswordRefusal | undefined {
  if (checkEmail(email.trim()) !== undefined) return { kind: 'not-an-address' };
  // Characters, not UTF-16 units: an emoji counts once.
  if ([...password].length < MIN_PASSWORD_LENGTH)
    return { kind: 'too-short', min: MIN_PASSWORD_LENGTH };
  return undefined;
}

export async function addAdmin(
  { store }: AccountsDeps,
  email: string,
  password: string,
): Promise<PasswordRefusal | { kind: 'added' } | { kind: 'exists' }> {
  const refused = refusal(email, password);
  if (refused) return refused;
  return (await store.admins.add(email, await hashPassword(password)))
    ? { kind: 'added' }
    : { kind: 'exists' };
}

export function listAdmins({ store }: AccountsDeps): Promise<AdminAccount[]> {
  return store.admins.list();
}

export async function removeAdmin(
  { store }: AccountsDeps,
  email: string,
): Promise<{ kind: 'removed' | 'unknown' }> {
  return { kind: (await store.admins.remove(email)) ? 'removed' : 'unknown' };
}

export async function changePassword(
  { store }: AccountsDeps,
  email: string,
  password: string,
): Promise<PasswordRefusal | { kind: 'changed' } | { kind: 'unknown' }> {
  const refused = refusal(email, password);
  if (refused) return refused;
  return (await store.admins.setPassword(email, await hashPassword(password)))
    ? { kind: 'changed' }
    : { kind: 'unknown' };
}

/** A new TOTP secret (160 bits, SHA-1, 6 digits, 30 s: what every authenticator app reads) and its otpauth:// URI. */
export async function enrolTotp(
  { store }: AccountsDeps,
  email: string,
): Promise<{ kind: 'enrolled'; uri: string } | { kind: 'unknown' }> {
  const totp = new TOTP({
    issuer: TOTP_ISSUER,
    label: email.trim(),
    secret: new Secret({ size: 20 }),
  });
  if (!(await store.admins.setTotp(email, totp.secret.base32))) return { kind: 'unknown' };
  return { kind: 'enrolled', uri: totp.toString() };
}
