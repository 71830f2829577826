// Waiting for something another process or a background task does, instead of sleeping a fixed
// time: as fast as the machine allows, and a clear failure when it never happens.

/** Resolves once `check()` is true; rejects after `timeoutMs`, naming what was awaited. */
export async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 5_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
