// The secrets the site makes. Those it mails it never keeps: activation keys and the tokens of
// address links. Each is random and stored only as its SHA-256, so a copied database activates,
// confirms and removes nobody. One hash for all of them: the secrets are long and random, so no
// salt or slow hash is needed (nothing to guess from the hash). The console's keys and device
// generations are kept as they are (newKey).
import { createHash, randomBytes } from 'node:crypto';

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** 24 random bytes (192 bits) as URL-safe base64: 32 characters, no padding. */
export function newSecret(): string {
  return randomBytes(24).toString('base64url');
}

/** What newSecret makes; anything else is refused before a lookup. */
export const SECRET_SHAPE = /^[A-Za-z0-9_-]{32}$/;

/** 32 random bytes as base64url: a console key, or an account's device generation. */
export function newKey(): string {
  return randomBytes(32).toString('base64url');
}
