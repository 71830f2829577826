// The loop behind the background workers (outbox, mail): run a round, wait, run the next. One
// round at a time, so a slow round never overlaps the next. A round that reports more work waiting
// is followed at once rather than after the pause. flush() runs rounds now until nothing more is
// due (the tests use it); wake() runs the next round now rather than after the pause (new work was
// just queued); stop() ends the loop and waits for the round in flight.
export interface Poller {
  flush(): Promise<void>;
  wake(): void;
  stop(): Promise<void>;
}

/**
 * `runRound` resolves true when it left work that is already due. While `saturated()` says the
 * process is saturated, more work and wake() wait for the normal pause: the requests come first.
 */
export function startPoller(
  runRound: () => Promise<boolean | void>,
  pollMs: number,
  saturated: () => boolean = () => false,
): Poller {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let round: Promise<void> = Promise.resolve();
  /** True while a round runs or is about to: a wake() then asks for one more right after it. */
  let inRound = false;
  let woken = false;

  function schedule(more: boolean | void = false): void {
    inRound = false;
    if (stopped) return;
    const now = (more === true || woken) && !saturated();
    woken = false;
    timer = setTimeout(
      () => {
        inRound = true;
        round = round.then(runRound).then(schedule);
      },
      now ? 0 : pollMs,
    );
  }

  schedule();
  return {
    flush(): Promise<void> {
      round = round.then(async () => {
        while ((await runRound()) === true && !stopped);
      });
      return round;
    },
    wake(): void {
      // Saturated: the round comes after the pause anyway, with a fuller batch.
      if (stopped || saturated()) return;
      if (inRound) {
        woken = true;
        return;
      }
      clearTimeout(timer);
      schedule(true);
    },
    async stop(): Promise<void> {
      stopped = true;
      clearTimeout(timer);
      await round;
    },
  };
}

/**
 * How long after a request's wake a round starts: the answer that woke it reaches the visitor
 * before the round takes the machine, so the work an address is due never lengthens its own answer
 * (decision 0021), and the wakes of a burst share one round.
 */
export const WAKE_AFTER_MS = 50;

/** The poller, with each wake() run WAKE_AFTER_MS later. */
export function wakeLater(poller: Poller): Poller {
  let timer: NodeJS.Timeout | undefined;
  return {
    ...poller,
    wake() {
      timer ??= setTimeout(() => {
        timer = undefined;
        poller.wake();
      }, WAKE_AFTER_MS);
    },
    async stop() {
      clearTimeout(timer);
      await poller.stop();
    },
  };
}
