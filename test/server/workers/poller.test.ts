// The loop behind the background workers: a round after each pause, at once when woken (a request
// just queued mail), and never two rounds at the same time.
import { startPoller } from '../../../server/workers/poller';

// Jest's fake clock: the pauses are exact, whatever else loads the machine.
beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());
const tick = (ms: number) => jest.advanceTimersByTimeAsync(ms);

it('runs the next round at once when woken, instead of after the pause', async () => {
  const rounds: number[] = [];
  const started = Date.now();
  const poller = startPoller(async () => void rounds.push(Date.now() - started), 60_000);
  // (Date.now() follows the fake clock.)
  try {
    await tick(20);
    expect(rounds).toEqual([]);
    poller.wake();
    await tick(20);
    expect(rounds).toHaveLength(1);
    expect(rounds[0]).toBeLessThan(60_000);
  } finally {
    await poller.stop();
  }
});

it('runs one more round right after the current one when woken during it, never two at once', async () => {
  let running = 0;
  let overlapped = false;
  let release!: () => void;
  const rounds: string[] = [];
  const poller = startPoller(async () => {
    running++;
    overlapped ||= running > 1;
    rounds.push('start');
    if (rounds.length === 1) await new Promise<void>((resolve) => (release = resolve));
    running--;
  }, 60_000);
  try {
    poller.wake();
    await tick(20);
    expect(rounds).toEqual(['start']);
    // New work arrives while the round runs: it may have claimed before the work was queued.
    poller.wake();
    poller.wake();
    release();
    await tick(20);
    expect(rounds).toEqual(['start', 'start']);
    expect(overlapped).toBe(false);
  } finally {
    await poller.stop();
  }
});

it('does nothing when woken after stop', async () => {
  let rounds = 0;
  const poller = startPoller(async () => void rounds++, 60_000);
  await poller.stop();
  poller.wake();
  await tick(20);
  expect(rounds).toBe(0);
});

it('while the process is saturated, neither more work nor a wake skips the pause: requests come first', async () => {
  let saturated = true;
  let rounds = 0;
  // Always more work due, for the first ten rounds.
  const poller = startPoller(
    async () => ++rounds < 10,
    100,
    () => saturated,
  );
  try {
    poller.wake();
    await tick(50);
    expect(rounds).toBe(0);
    await tick(60);
    expect(rounds).toBe(1); // after the pause, not at once
    await tick(50);
    expect(rounds).toBe(1); // more work waits for the next pause too
    await tick(60);
    expect(rounds).toBe(2);
    saturated = false;
    await tick(110);
    expect(rounds).toBe(10); // room again: the rounds with work due follow at once
  } finally {
    await poller.stop();
  }
});
