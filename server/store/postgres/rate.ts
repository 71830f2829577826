// The signup rate counters in PostgreSQL, shared by every replica, so SIGNUP_RATE_LIMIT holds for
// the whole site. Fixed windows as in memory-rate.ts: one row per client and window, counted up
// by one upsert, exact under any concurrency (the row lock orders the increments).
import type { RateCounter } from '../types';
import type { Connection } from './connection';

/** Every this many hits, the same statement also deletes windows that have ended. */
const SWEEP_EVERY = 100;

export function createRateCounter(db: Connection, now: () => number): RateCounter {
  let hits = 0;
  return {
    async hit(key, windowMs) {
      const at = now();
      const windowStart = Math.floor(at / windowMs) * windowMs;
      const sweep = ++hits % SWEEP_EVERY === 0;
      // The site counts in one window length (rate-limit.ts); a counter of a longer window
      // would be swept once this length has passed.
      const { rows } = await db.query<{ count: number }>(
        `WITH swept AS (
           DELETE FROM rate_counters
           WHERE $3 AND window_start < $4
         )
         INSERT INTO rate_counters (key, window_start, count)
         VALUES ($1, $2, 1)
         ON CONFLICT (key, window_start) DO UPDATE
         SET count = rate_counters.count + 1
         RETURNING count`,
        [key, windowStart, sweep, at - windowMs],
      );
      return { count: rows[0].count, resetAt: windowStart + windowMs };
    },
  };
}
