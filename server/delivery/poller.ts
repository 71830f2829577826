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

/** `runRound` resolves true when it left work that is already due. */
export function startPoller(runRound: () => Promise<boolean | void>, pollMs: number): Poller {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let round: Promise<void> = Promise.resolve();
  /** True while a round runs or is about to: a wake() then asks for one more right after it. */
  let busy = false;
  let woken = false;

  function schedule(more: boolean | void = false): void {
    busy = false;
    if (stopped) return;
    const now = more === true || woken;
    woken = false;
    timer = setTimeout(
      () => {
        busy = true;
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
      if (stopped) return;
      if (busy) {
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
