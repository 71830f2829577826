// The secrets the site mails and never keeps: activation keys and the tokens of address links.
// Each is random and stored only as its SHA-256, so a copied database activates, confirms and
// removes nobody. One hash for all of them: the secrets are long and random, so no salt or slow
// hash is needed (nothing to guess from the hash).
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
