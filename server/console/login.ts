// Logging in to the console. The throttle first: 5 failures in 15 minutes, counted in the store so
// every replica agrees. A browser with a valid device cookie for the account (device-cookie.ts) is
// counted on its own; every other attempt is counted per account and per client IP (IPv6 by /56).
// While a count is at the limit even the right password gets 429, the refusal is not counted (it
// cannot push the lock's end away) and writes nothing, and the audit log gets one entry per
// account and window. Then the password (an unknown account costs the same argon2id check as a
// known one), then the code when the account enrolled two-factor, which works once: its time step
// must be later than the last one the account accepted. A session id is 192 random bits, kept in
// the store only as its SHA-256.
import { ipKeyGenerator } from 'express-rate-limit';
import { TOTP } from 'otpauth';
import { emailKey } from '../../shared/form-checks';
import type { Store } from '../store';
import type { AdminCredentials } from '../store/admins';
import { hashSecret, newSecret } from '../store/secrets';
import { DEVICE_KEY, deviceCookieFor, signedDevice, type Device } from './device-cookie';
import { verifyPassword } from './password';

export const THROTTLE = { failures: 5, windowMs: 15 * 60_000 } as const;
export const SESSION_LIMITS = { idleMs: 30 * 60_000, maxMs: 12 * 60 * 60_000 } as const;

/** What an audit record names for a login to no account: never the typed address. */
export const UNKNOWN_ACCOUNT = '(unknown)';

/** The audit action of a window's first refused attempt under the throttle. */
export const THROTTLED_ACTION = 'login throttled';

export type LoginOutcome =
  /** `device`: the browser's new device cookie for the account. */
  | { kind: 'in'; sessionId: string; email: string; device: string }
  | { kind: 'refused' }
  | { kind: 'throttled'; retryAfterSeconds: number };

export interface LoginDeps {
  store: Pick<Store, 'admins' | 'sessions' | 'loginThrottle' | 'audit' | 'consoleKeys'>;
  now?: () => number;
}

/**
 * The throttle's key for an account's attempts from browsers it does not know: a hash, so the
 * table holds no address. `waitlist admin unlock` clears it.
 */
export const untrustedAccountKey = (email: string) => `account:${hashSecret(emailKey(email))}`;

/**
 * An attempt's throttle keys. An IPv6 client is counted by its /56, as the forms' limit counts
 * it: one host holds a whole /64 and can speak from any address in it.
 */
const throttleKeys = (email: string, ip: string, device: Device | undefined) =>
  device
    ? [`device:${hashSecret(device.nonce)}`]
    : [untrustedAccountKey(email), `ip:${hashSecret(ipKeyGenerator(ip))}`];

export async function login(
  { store, now = Date.now }: LoginDeps,
  input: { email: string; password: string; code: string; ip: string; device?: string },
): Promise<LoginOutcome> {
  // Read at most once, and only when needed before the password: for a cookie signed here.
  let account: Promise<AdminCredentials | undefined> | undefined;
  const credentials = () => (account ??= store.admins.credentials(input.email));

  const deviceKey = await store.consoleKeys.get(DEVICE_KEY);
  const signed = signedDevice(deviceKey, input.email, input.device);
  const trusted =
    signed && (await credentials())?.deviceGeneration === signed.generation ? signed : undefined;
  const keys = throttleKeys(input.email, input.ip, trusted);
  const attempt = await store.loginThrottle.attempt(keys, {
    windowMs: THROTTLE.windowMs,
    limit: THROTTLE.failures,
  });
  if (!attempt.allowed) {
    // One entry per account and window, however long the flood: the log says it happened, and
    // the attacker cannot fill it. A refusal this process remembers was recorded already.
    if (!attempt.remembered)
      await store.audit.recordOnce(
        {
          account: (await credentials())?.email ?? UNKNOWN_ACCOUNT,
          action: THROTTLED_ACTION,
          addresses: 0,
          client: input.ip,
        },
        new Date(attempt.window).toISOString(),
      );
    return {
      kind: 'throttled',
      retryAfterSeconds: Math.max(1, Math.ceil(attempt.retryAfterMs / 1000)),
    };
  }

  const found = await credentials();
  const passwordOk = await verifyPassword(input.password, found?.passwordHash);
  // The code's step is claimed only behind the right password: a guess cannot spend a code.
  const step = found?.totpSecret ? codeStep(found.totpSecret, input.code, now()) : null;
  const codeOk =
    !found?.totpSecret ||
    (passwordOk && step !== null && (await store.admins.acceptTotpStep(found.email, step)));
  if (!found || !passwordOk || !codeOk) {
    await store.audit.record({
      account: found?.email ?? UNKNOWN_ACCOUNT,
      action: 'failed login',
      addresses: 0,
      client: input.ip,
    });
    return { kind: 'refused' };
  }
  // Only failures stay counted: this attempt is taken back.
  await store.loginThrottle.succeeded(keys, THROTTLE.windowMs);
  const sessionId = newSecret();
  await store.sessions.start(found.email, hashSecret(sessionId));
  await store.audit.record({
    account: found.email,
    action: 'login',
    addresses: 0,
    client: input.ip,
  });
  return {
    kind: 'in',
    sessionId,
    email: found.email,
    device: deviceCookieFor(deviceKey, found.email, found.deviceGeneration),
  };
}

/** The time step of a valid code (the steps beside it count too: clocks drift), or null. */
function codeStep(secret: string, code: string, at: number): number | null {
  const totp = new TOTP({ secret });
  const delta = totp.validate({ token: code.replace(/\s/g, ''), timestamp: at, window: 1 });
  return delta === null ? null : totp.counter({ timestamp: at }) + delta;
}

/** The account of a live session id (from the cookie), seen now. */
export async function sessionAccount(
  { store }: Pick<LoginDeps, 'store'>,
  sessionId: string | undefined,
): Promise<string | undefined> {
  if (!sessionId) return undefined;
  return (await store.sessions.touch(hashSecret(sessionId), SESSION_LIMITS))?.email;
}

export async function logout(
  { store }: Pick<LoginDeps, 'store'>,
  sessionId: string,
  email: string,
  client: string,
): Promise<void> {
  await store.sessions.end(hashSecret(sessionId));
  await store.audit.record({ account: email, action: 'logout', addresses: 0, client });
}

/**
 * The session's CSRF token: derived from its id, so it needs no storage and dies with the session.
 */
export function csrfToken(sessionId: string): string {
  return hashSecret(`csrf:${sessionId}`);
}
