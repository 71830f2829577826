// The loop behind the background workers: a round after each pause, at once when woken (a request
// just queued mail), and never two rounds at the same time.
import { startPoller } from '../../../server/delivery/poller';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('runs the next round at once when woken, instead of after the pause', async () => {
  const rounds: number[] = [];
  const started = Date.now();
  const poller = startPoller(async () => void rounds.push(Date.now() - started), 60_000);
  try {
    await tick(20);
    expect(rounds).toEqual([]);
    poller.wake();
    await tick(20);
    expect(rounds).toHaveLength(1);
    expect(rounds[0]).toBeLessThan(1_000);
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
