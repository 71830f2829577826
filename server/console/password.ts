// Console passwords (issue 24), hashed with scrypt from node:crypto: memory-hard like argon2id, no
// native module to build. Parameters (decision 0016): N = 2^15, r = 8, p = 1, 16-byte salt, 32-byte
// key; 32 MiB and about 100 ms per check on this machine, which bounds a guesser with the
// database to a few guesses a second per core, under the 250 ms per login. The stored form
// names its parameters, so raising them later still verifies old hashes.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const PARAMS = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_BYTES = 32;
const SALT_BYTES = 16;

/** Shorter passwords are refused (issue 24). */
export const MIN_PASSWORD_LENGTH = 12;

function derive(password: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  // scrypt needs 128 · N · r bytes; Node's default cap is exactly 32 MiB, so room is made for it.
  const options: ScryptOptions = { ...params, maxmem: 256 * params.N * params.r };
  return new Promise((resolve, reject) => scrypt(password.normalize('NFC'), salt, KEY_BYTES, options, (err, key) => (err ? reject(err) : resolve(key))));
}

/** `scrypt$N$r$p$salt$key`, salt and key in base64url. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** A hash of no one's password, checked for an unknown account so both answers take the same time. */
let decoy: Promise<string> | undefined;

/** True when `password` is the one `stored` was made from; with no stored hash, false in the same time. */
export async function verifyPassword(password: string, stored: string | undefined): Promise<boolean> {
  const hash = stored ?? (await (decoy ??= hashPassword(randomBytes(16).toString('hex'))));
  const [scheme, n, r, p, salt, key] = hash.split('$');
  if (scheme !== 'scrypt' || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return stored !== undefined && actual.length === expected.length && timingSafeEqual(actual, expected);
}
