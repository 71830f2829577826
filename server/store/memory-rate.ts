// The rate counters of a single instance (the SQLite store): one process sees every request, so
// counting in memory is exact and costs no write per signup. Fixed windows, like the PostgreSQL
// counters several replicas share; windows that ended are swept as new ones start.
import type { RateCounter } from './types';

export function createMemoryRateCounter(now: () => number = Date.now): RateCounter {
  const windows = new Map<string, { count: number; resetAt: number }>();
  let nextSweep = 0;
  return {
    async hit(key, windowMs) {
      const at = now();
      if (at >= nextSweep) {
        for (const [k, w] of windows) if (w.resetAt <= at) windows.delete(k);
        nextSweep = at + windowMs;
      }
      let window = windows.get(key);
      if (!window || window.resetAt <= at) {
        window = { count: 0, resetAt: Math.floor(at / windowMs) * windowMs + windowMs };
        windows.set(key, window);
      }
      window.count += 1;
      return { ...window };
    },
  };
}
