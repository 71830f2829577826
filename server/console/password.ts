// Console passwords, hashed with argon2id (@node-rs/argon2, prebuilt for each platform,
// so nothing compiles). Parameters (decision 0016): 64 MiB, 3 passes, 1 lane, a 16-byte salt and a
// 32-byte tag: RFC 9106's second recommended set with one lane, over OWASP's minimum (19 MiB, 2
// passes), and about 60 ms per check on this machine, under the 250 ms per login. The
// stored form is the PHC string, which names its parameters: raising them later still verifies
// the old hashes.
import { hash, verify, type Algorithm } from '@node-rs/argon2';
import { randomBytes } from 'node:crypto';

/** argon2id's cost: memory in KiB, passes over it, lanes. */
export interface PasswordCost {
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

/** What the site and the CLI hash with: nothing but a test's setPasswordCost changes it. */
export const PRODUCTION_COST: Readonly<PasswordCost> = {
  memoryCost: 64 * 1024,
  timeCost: 3,
  parallelism: 1,
};

let cost: Readonly<PasswordCost> = PRODUCTION_COST;

/**
 * A hash of no one's password at the current cost, checked for an unknown account so both
 * answers take the same time.
 */
let decoy: Promise<string> | undefined;

/**
 * The cost of the hashes made from now on. Only tests call it (test/support/password-cost.ts): a
 * function, not a setting, so no environment can weaken production's hashes by mistake.
 */
export function setPasswordCost(next: PasswordCost): void {
  cost = { ...next };
  // The decoy must cost what the stored hashes cost, or an unknown account answers faster.
  decoy = undefined;
}

/** Shorter passwords are refused. */
export const MIN_PASSWORD_LENGTH = 12;

/**
 * `$argon2id$v=19$m=65536,t=3,p=1$salt$tag`. The password is NFC-normalised first, so the same
 * passphrase typed on two systems matches.
 */
export function hashPassword(password: string): Promise<string> {
  // Algorithm is a const enum, which isolated modules cannot read: its Argon2id member is 2.
  const algorithm = 2 as Algorithm.Argon2id;
  return hash(password.normalize('NFC'), {
    algorithm,
    ...cost,
    outputLen: 32,
    salt: randomBytes(16),
  });
}

/**
 * True when `password` is the one `stored` was made from; with no stored hash, false in the same
 * time.
 */
export async function verifyPassword(
  password: string,
  stored: string | undefined,
): Promise<boolean> {
  const checked = stored ?? (await (decoy ??= hashPassword(randomBytes(16).toString('hex'))));
  if (!checked.startsWith('$argon2id$')) return false;
  const matches = await verify(checked, password.normalize('NFC')).catch(() => false);
  return stored !== undefined && matches;
}
