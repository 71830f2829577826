// The console's login throttle (the LoginThrottle contract below). Counts live in the
// store, so every replica agrees; a key found at its limit is also remembered in this process
// for a few seconds, so a flood of refused attempts costs a map lookup each, not a transaction
// with a disk sync. Keys are hashes: the table holds no address and no IP.
import { placeholders, type Sql } from './sql';

/**
 * Login attempts per key (an account's untrusted attempts, a client IP, a trusted browser) in a
 * sliding window (the current fixed window's count plus the previous one's, weighed by how much of
 * it the last windowMs still covers), shared by every replica. An attempt is counted before its
 * password is checked, so a burst of a hundred at once checks only as many as the limit allows; a
 * successful one is taken back, so only failures stay counted. A refused attempt is not counted:
 * a flood cannot push the end of the lock further away.
 */
export interface LoginThrottle {
  /**
   * Counts one attempt for each key, unless one of them is at the limit already. A refusal
   * writes nothing: this process remembers a key at the limit for a few seconds and refuses it
   * again without asking the store. `retryAfterMs`: how soon the worst key falls below the limit
   * if nothing more is counted; `window`: the start of the fixed window it was refused in;
   * `remembered`: the refusal came from this process's memory, not from the store.
   */
  attempt(
    keys: string[],
    limits: { windowMs: number; limit: number },
  ): Promise<
    | { allowed: true }
    | { allowed: false; retryAfterMs: number; window: number; remembered: boolean }
  >;
  /** Takes back the attempt that succeeded. */
  succeeded(keys: string[], windowMs: number): Promise<void>;
  /**
   * Forgets every attempt of these keys, here and in the store (another replica's memory lets go
   * within seconds).
   */
  clear(keys: string[]): Promise<void>;
}

/**
 * How long a key found at its limit is refused from memory before the store is asked again: an
 * `admin unlock` on another replica, or a success there, reaches this one within that.
 */
export const REMEMBERED_MS = 5_000;

/** Keys remembered at most; past that the oldest go (an attacker can make keys, not memory). */
const REMEMBERED_KEYS = 10_000;

/** Refused for this long after it, by the sliding window's arithmetic. */
interface Held {
  until: number;
  retryAt: number;
  window: number;
}

export function createLoginThrottle(sql: Sql, now: () => number): LoginThrottle {
  const held = new Map<string, Held>();

  const remember = (key: string, hold: Held) => {
    held.delete(key); // re-inserted last: a Map iterates in insertion order, oldest first
    held.set(key, hold);
    if (held.size > REMEMBERED_KEYS) held.delete(held.keys().next().value!);
  };

  /** Of the keys' remembered refusals that hold now, the one that ends last. */
  const fromMemory = (keys: string[], at: number): Held | undefined => {
    let worst: Held | undefined;
    for (const key of keys) {
      const hold = held.get(key);
      if (!hold) continue;
      if (hold.until <= at) held.delete(key);
      else if (!worst || hold.retryAt > worst.retryAt) worst = hold;
    }
    return worst;
  };

  return {
    async attempt(keys, { windowMs, limit }) {
      const at = now();
      const remembered = fromMemory(keys, at);
      if (remembered)
        return {
          allowed: false,
          retryAfterMs: remembered.retryAt - at,
          window: remembered.window,
          remembered: true,
        };

      const window = Math.floor(at / windowMs) * windowMs;
      const slide = { at, window, windowMs, limit };
      const counts = await countsOf(sql, keys, window - windowMs);
      const refuse = (over: Map<string, Tally>) => {
        let retryAt = at;
        for (const [key, tally] of over) {
          const hold = { until: at + REMEMBERED_MS, retryAt: unlockAt(tally, slide), window };
          hold.until = Math.min(hold.until, hold.retryAt);
          remember(key, hold);
          retryAt = Math.max(retryAt, hold.retryAt);
        }
        return { allowed: false as const, retryAfterMs: retryAt - at, window, remembered: false };
      };
      const atLimit = overLimit(keys, counts, slide, 0);
      // Refused on a read: nothing is written for an attempt that is not counted.
      if (atLimit.size > 0) return refuse(atLimit);

      const overOnceCounted = await sql
        .transaction(async (tx) => {
          // Windows that can no longer weigh go as new attempts come: the table holds two
          // windows' keys at most.
          await tx.query(
            `DELETE FROM login_failures
             WHERE window_start < $1`,
            [window - windowMs],
          );
          for (const key of keys) {
            // One upsert per key, exact under any concurrency: the row lock orders increments.
            const { rows } = await tx.query<{ count: number }>(
              `INSERT INTO login_failures (key, window_start, count)
               VALUES ($1, $2, 1)
               ON CONFLICT (key, window_start) DO UPDATE
               SET count = login_failures.count + 1
               RETURNING count`,
              [key, window],
            );
            counts.set(key, {
              current: Number(rows[0].count),
              previous: counts.get(key)?.previous ?? 0,
            });
          }
          // Another replica counted meanwhile and this attempt went past the limit: it is
          // refused, and the rollback takes its count back.
          const over = overLimit(keys, counts, slide, 1);
          if (over.size > 0) throw new Refused(over);
        })
        .then(
          () => undefined,
          (err: unknown) => {
            if (err instanceof Refused) return err.over;
            throw err;
          },
        );
      return overOnceCounted ? refuse(overOnceCounted) : { allowed: true };
    },

    async succeeded(keys, windowMs) {
      for (const key of keys) held.delete(key);
      const window = Math.floor(now() / windowMs) * windowMs;
      await sql.query(
        `UPDATE login_failures
         SET count = count - 1
         WHERE window_start = $1 AND count > 0 AND key IN (${placeholders(keys, 2)})`,
        [window, ...keys],
      );
    },

    async clear(keys) {
      for (const key of keys) held.delete(key);
      await sql.query(
        `DELETE FROM login_failures
         WHERE key IN (${placeholders(keys)})`,
        keys,
      );
    },
  };
}

/** A key's counts: this fixed window's, and the one before's. */
interface Tally {
  current: number;
  previous: number;
}

interface Slide {
  at: number;
  window: number;
  windowMs: number;
  limit: number;
}

async function countsOf(sql: Sql, keys: string[], previousWindow: number) {
  const { rows } = await sql.query<{ key: string; window_start: number | string; count: number }>(
    `SELECT key, window_start, count
     FROM login_failures
     WHERE window_start >= $1 AND key IN (${placeholders(keys, 2)})`,
    [previousWindow, ...keys],
  );
  const counts = new Map<string, Tally>();
  for (const row of rows) {
    const tally = counts.get(row.key) ?? { current: 0, previous: 0 };
    if (Number(row.window_start) === previousWindow) tally.previous = Number(row.count);
    else tally.current = Number(row.count);
    counts.set(row.key, tally);
  }
  return counts;
}

/**
 * The attempts within the last windowMs: this window's, and as much of the previous one's as the
 * last windowMs still covers (fixed windows alone would allow twice the limit across an edge).
 */
const weighed = ({ current, previous }: Tally, { at, window, windowMs }: Slide) =>
  current + Math.floor((previous * (windowMs - (at - window))) / windowMs);

/** The keys whose weighed count is past `limit - 1 + slack` (slack 1: this attempt counted). */
function overLimit(keys: string[], counts: Map<string, Tally>, slide: Slide, slack: number) {
  const over = new Map<string, Tally>();
  for (const key of keys) {
    const tally = counts.get(key);
    if (tally && weighed(tally, slide) >= slide.limit + slack) over.set(key, tally);
  }
  return over;
}

/**
 * When a key at its limit falls below it if nothing more is counted: the previous window's share
 * shrinks as time passes, and this window's becomes the next one's previous.
 */
function unlockAt({ current, previous }: Tally, { at, window, windowMs, limit }: Slide): number {
  // floor(n × (1 - x)) < m once x > (n - m) / n, x being the fraction of the window gone by
  // (integers multiplied before dividing: no rounding lands a millisecond early).
  const after = (n: number, m: number) => Math.floor((windowMs * (n - m)) / n) + 1;
  if (current >= limit) return window + windowMs + after(current, limit);
  if (previous === 0) return at;
  return window + after(previous, limit - current);
}

/** Thrown inside the transaction to roll back an attempt counted past the limit. */
class Refused extends Error {
  constructor(readonly over: Map<string, Tally>) {
    super('over the limit');
  }
}
