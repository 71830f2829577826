// Waiting for something another process or a background task does, instead of sleeping a fixed
// time: as fast as the machine allows, and a clear failure when it never happens.

/**
 * How long `until` waits by default: long enough that only a thing that never happens reaches it,
 * however crowded the machine, and shorter than Jest's test timeout (jest.config.js), so that the
 * failure names what was awaited.
 */
const DEFAULT_DEADLINE_MS = 30_000;

/** Resolves once `check()` is true; rejects after `timeoutMs`, naming what was awaited. */
export async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = DEFAULT_DEADLINE_MS,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
