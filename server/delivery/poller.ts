// The loop behind the background workers (outbox, mail): run a round, wait, run the next. One
// round at a time, so a slow round never overlaps the next. A round that reports more work waiting
// is followed at once rather than after the pause. flush() runs rounds now until nothing more is
// due (the tests use it); stop() ends the loop and waits for the round in flight.
export interface Poller {
  flush(): Promise<void>;
  stop(): Promise<void>;
}

/** `runRound` resolves true when it left work that is already due. */
export function startPoller(runRound: () => Promise<boolean | void>, pollMs: number): Poller {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let round: Promise<void> = Promise.resolve();

  function schedule(more: boolean | void = false): void {
    if (stopped) return;
    timer = setTimeout(
      () => {
        round = round.then(runRound).then(schedule);
      },
      more ? 0 : pollMs,
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
    async stop(): Promise<void> {
      stopped = true;
      clearTimeout(timer);
      await round;
    },
  };
}
