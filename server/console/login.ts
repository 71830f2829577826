// Logging in to the console: the throttle first (5 failures per account or per client
// IP, IPv6 by /56, in 15 minutes, counted in the store so every replica agrees; while it holds,
// even the right password gets 429, and the audit log gets one entry per account and window),
// then the password (an unknown account costs the same argon2id check as a known one), then the
// code when the account enrolled two-factor, which works once: its time step must be later than
// the last one the account accepted. A session id is 192 random bits, kept in the store only as
// its SHA-256.
import { ipKeyGenerator } from 'express-rate-limit';
import { TOTP } from 'otpauth';
import { emailKey } from '../../shared/form-checks';
import type { Store } from '../store';
import { hashSecret, newSecret } from '../store/secrets';
import { verifyPassword } from './password';

export const THROTTLE = { failures: 5, windowMs: 15 * 60_000 } as const;
export const SESSION_LIMITS = { idleMs: 30 * 60_000, maxMs: 12 * 60 * 60_000 } as const;

/** What an audit record names for a login to no account: never the typed address. */
export const UNKNOWN_ACCOUNT = '(unknown)';

/** The audit action of a window's first refused attempt under the throttle. */
export const THROTTLED_ACTION = 'login throttled';

export type LoginOutcome =
  | { kind: 'in'; sessionId: string; email: string }
  | { kind: 'refused' }
  | { kind: 'throttled'; retryAfterSeconds: number };

export interface LoginDeps {
  store: Pick<Store, 'admins' | 'sessions' | 'loginThrottle' | 'audit'>;
  now?: () => number;
}

/**
 * Throttle keys: hashes, so the table holds no address and no IP. An IPv6 client is counted by its
 * /56, as the forms' limit counts it: one host holds a whole /64 and can speak from any address
 * in it.
 */
const throttleKeys = (email: string, ip: string) => [
  `account:${hashSecret(emailKey(email))}`,
  `ip:${hashSecret(ipKeyGenerator(ip))}`,
];

export async function login(
  { store, now = Date.now }: LoginDeps,
  input: { email: string; password: string; code: string; ip: string },
): Promise<LoginOutcome> {
  const keys = throttleKeys(input.email, input.ip);
  // Counted before the check, so a burst checks no more passwords than the limit allows.
  const attempts = await store.loginThrottle.attempt(keys, THROTTLE.windowMs);
  if (attempts.count > THROTTLE.failures) {
    // One entry per account and window, however long the flood: the log says it happened, and
    // the attacker cannot fill it.
    await store.audit.recordOnce(
      {
        account: (await store.admins.credentials(input.email))?.email ?? UNKNOWN_ACCOUNT,
        action: THROTTLED_ACTION,
        addresses: 0,
        client: input.ip,
      },
      new Date(attempts.resetAt - THROTTLE.windowMs).toISOString(),
    );
    return {
      kind: 'throttled',
      retryAfterSeconds: Math.max(1, Math.ceil((attempts.resetAt - now()) / 1000)),
    };
  }

  const account = await store.admins.credentials(input.email);
  const passwordOk = await verifyPassword(input.password, account?.passwordHash);
  // The code's step is claimed only behind the right password: a guess cannot spend a code.
  const step = account?.totpSecret ? codeStep(account.totpSecret, input.code, now()) : null;
  const codeOk =
    !account?.totpSecret ||
    (passwordOk && step !== null && (await store.admins.acceptTotpStep(account.email, step)));
  if (!account || !passwordOk || !codeOk) {
    await store.audit.record({
      account: account?.email ?? UNKNOWN_ACCOUNT,
      action: 'failed login',
      addresses: 0,
      client: input.ip,
    });
    return { kind: 'refused' };
  }
  // Only failures stay counted: this attempt is taken back.
  await store.loginThrottle.succeeded(keys, THROTTLE.windowMs);
  const sessionId = newSecret();
  await store.sessions.start(account.email, hashSecret(sessionId));
  await store.audit.record({
    account: account.email,
    action: 'login',
    addresses: 0,
    client: input.ip,
  });
  return { kind: 'in', sessionId, email: account.email };
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
