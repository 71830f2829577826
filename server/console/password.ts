// Console passwords, hashed with argon2id (@node-rs/argon2, prebuilt for each platform,
// so nothing compiles). Parameters (decision 0016): 64 MiB, 3 passes, 1 lane, a 16-byte salt and a
// 32-byte tag: RFC 9106's second recommended set with one lane, over OWASP's minimum (19 MiB, 2
// passes), and about 60 ms per check on this machine, under the 250 ms per login. The
// stored form is the PHC string, which names its parameters: raising them later still verifies
// the old hashes.
import { hash, verify, type Algorithm } from '@node-rs/argon2';
import { randomBytes } from 'node:crypto';

// Algorithm is a const enum, which isolated modules cannot read: its Argon2id member is 2.
const PARAMS = {
  algorithm: 2 as Algorithm.Argon2id,
  memoryCost: 64 * 1024,
  timeCost: 3,
  parallelism: 1,
  outputLen: 32,
} as const;

/** Shorter passwords are refused. */
export const MIN_PASSWORD_LENGTH = 12;

/**
 * `$argon2id$v=19$m=65536,t=3,p=1$salt$tag`. The password is NFC-normalised first, so the same
 * passphrase typed on two systems matches.
 */
export function hashPassword(password: string): Promise<string> {
  return hash(password.normalize('NFC'), { ...PARAMS, salt: randomBytes(16) });
}

/**
 * A hash of no one's password, checked for an unknown account so both answers take the same time.
 */
let decoy: Promise<string> | undefined;

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
