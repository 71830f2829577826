// The console's accounts, one function per operation, as `waitlist admin …` calls them:
// add, list, remove, a new password and two-factor enrolment (both end the account's sessions and
// device cookies), and unlocking an account a login flood holds shut.
// Each change is in the audit log with the actor `cli`, its only door, naming the account changed.
import { Secret, TOTP } from 'otpauth';
import { checkEmail } from '../../shared/validation';
import type { Store } from '../store';
import type { AdminAccount } from '../store/admins';
import { untrustedAccountKey } from './login';
import { hashPassword, MIN_PASSWORD_LENGTH } from './password';

type AccountsDeps = { store: Pick<Store, 'admins' | 'audit' | 'loginThrottle'> };

/** Who the audit log names for a change made with `waitlist admin …`. */
export const CLI_ACTOR = 'cli';

/** An account change, as the CLI command that made it: `admin add ops@example.org`. */
const recordChange = ({ store }: AccountsDeps, command: string, email: string) =>
  store.audit.record({
    account: CLI_ACTOR,
    action: `admin ${command} ${email.trim()}`,
    addresses: 0,
  });

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
  deps: AccountsDeps,
  email: string,
  password: string,
): Promise<PasswordRefusal | { kind: 'added' } | { kind: 'exists' }> {
  const refused = refusal(email, password);
  if (refused) return refused;
  if (!(await deps.store.admins.add(email, await hashPassword(password))))
    return { kind: 'exists' };
  await recordChange(deps, 'add', email);
  return { kind: 'added' };
}

export function listAdmins({ store }: { store: Pick<Store, 'admins'> }): Promise<AdminAccount[]> {
  return store.admins.list();
}

export async function removeAdmin(
  deps: AccountsDeps,
  email: string,
): Promise<{ kind: 'removed' | 'unknown' }> {
  if (!(await deps.store.admins.remove(email))) return { kind: 'unknown' };
  await recordChange(deps, 'remove', email);
  return { kind: 'removed' };
}

export async function changePassword(
  deps: AccountsDeps,
  email: string,
  password: string,
): Promise<PasswordRefusal | { kind: 'changed' } | { kind: 'unknown' }> {
  const refused = refusal(email, password);
  if (refused) return refused;
  if (!(await deps.store.admins.setPassword(email, await hashPassword(password))))
    return { kind: 'unknown' };
  await recordChange(deps, 'password', email);
  return { kind: 'changed' };
}

/**
 * A new TOTP secret (160 bits, SHA-1, 6 digits, 30 s: what every authenticator app reads) and its
 * otpauth:// URI.
 */
export async function enrolTotp(
  deps: AccountsDeps,
  email: string,
): Promise<{ kind: 'enrolled'; uri: string } | { kind: 'unknown' }> {
  const totp = new TOTP({
    issuer: TOTP_ISSUER,
    label: email.trim(),
    secret: new Secret({ size: 20 }),
  });
  if (!(await deps.store.admins.setTotp(email, totp.secret.base32))) return { kind: 'unknown' };
  await recordChange(deps, 'totp', email);
  return { kind: 'enrolled', uri: totp.toString() };
}

/**
 * The way back for an operator whose browsers are all unknown while a flood holds the account
 * shut: its count of attempts from unknown browsers starts again (the client IPs' counts stay).
 */
export async function unlockAdmin(
  deps: AccountsDeps,
  email: string,
): Promise<{ kind: 'unlocked' | 'unknown' }> {
  if (!(await deps.store.admins.credentials(email))) return { kind: 'unknown' };
  await deps.store.loginThrottle.clear([untrustedAccountKey(email)]);
  await recordChange(deps, 'unlock', email);
  return { kind: 'unlocked' };
}
