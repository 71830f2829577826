// Device cookies (OWASP's "Slow Down Online Guessing Attacks with Device Cookies"): a browser
// that logged in to an account carries proof of it, so its attempts are counted apart from
// everyone else's and a flood from elsewhere cannot lock its operator out. The cookie is a random
// nonce, the account's device generation and an HMAC over both and the account, keyed with a
// secret every replica reads from the store. A forged cookie is told apart with no store read; a
// new password, second factor or removal changes the generation, and every older cookie with it.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { emailKey } from '../../shared/form-checks';

/** The console key (store.consoleKeys) that signs device cookies. */
export const DEVICE_KEY = 'device-cookie';

/** How long a browser stays known after its last login. */
export const DEVICE_COOKIE_MAX_MS = 90 * 24 * 60 * 60_000;

/** What a valid cookie says: which browser (the nonce), and the generation it was signed in. */
export interface Device {
  nonce: string;
  generation: string;
}

const SHAPE = /^([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{0,64})\.([A-Za-z0-9_-]{43})$/;

const signature = (key: string, email: string, { nonce, generation }: Device) =>
  createHmac('sha256', key)
    .update(JSON.stringify(['device', emailKey(email), generation, nonce]))
    .digest();

/** A new cookie value for a browser that just logged in to `email`. */
export function deviceCookieFor(key: string, email: string, generation: string): string {
  const device = { nonce: randomBytes(16).toString('base64url'), generation };
  return `${device.nonce}.${generation}.${signature(key, email, device).toString('base64url')}`;
}

/** The device a cookie names when it was signed here for `email`; undefined for anything else. */
export function signedDevice(key: string, email: string, value: string | undefined) {
  const parts = value ? SHAPE.exec(value) : null;
  if (!parts) return undefined;
  const device: Device = { nonce: parts[1], generation: parts[2] };
  const expected = signature(key, email, device);
  const given = Buffer.from(parts[3], 'base64url');
  return given.length === expected.length && timingSafeEqual(given, expected) ? device : undefined;
}
