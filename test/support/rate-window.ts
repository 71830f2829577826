// The signup rate limit counts in fixed windows of a minute on the clock (server/store/
// memory-rate.ts, server/store/postgres/rate.ts): requests that straddle a window's end are
// counted in two, and a client over its limit gets a fresh budget. A test of the limit keeps its
// requests in one window: in this process by stopping the clock, for a site in another process by
// starting clear of a window's end.

const RATE_WINDOW_MS = 60_000;

/** Every timer of Node stays real while the clock stands still: only Date is faked. */
const REAL_TIMERS = [
  'hrtime',
  'nextTick',
  'performance',
  'queueMicrotask',
  'setImmediate',
  'clearImmediate',
  'setInterval',
  'clearInterval',
  'setTimeout',
  'clearTimeout',
] as const;

/** Stops this process's clock a second into a minute, until jest.useRealTimers(). */
export function stopClockInOneRateWindow(): void {
  jest.useFakeTimers({ now: Date.parse('2026-11-01T10:00:01.000Z'), doNotFake: [...REAL_TIMERS] });
}

/** Runs `body` with this process's clock standing still in one window. */
export async function inOneRateWindow<T>(body: () => Promise<T>): Promise<T> {
  stopClockInOneRateWindow();
  try {
    return await body();
  } finally {
    jest.useRealTimers();
  }
}

/**
 * For a site in another process: when less than `marginMs` of the window is left, resolves once
 * the next one has started. A wait for the clock itself, the one event the test depends on.
 */
export async function clearOfRateWindowEnd(marginMs: number): Promise<void> {
  const left = RATE_WINDOW_MS - (Date.now() % RATE_WINDOW_MS);
  if (left < marginMs) await new Promise((resolve) => setTimeout(resolve, left + 100));
}
