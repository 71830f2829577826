// The chaos run's faults: every 10 to 20 s (at random) one replica that is up is killed with
// SIGKILL and started again at once on the same port and settings. Each kill's time and replica
// are recorded: the accounting excuses a duplicate mail only by them.
import type { Replica } from './replicas';

export const KILL_EVERY_S = { min: 10, max: 20 };

export interface Kill {
  replica: number;
  at: number;
  /** How long the replica took to answer /readyz again (NaN: it did not). */
  restartMs: number;
}

export function startFaults(replicas: Replica[], onError: (err: Error) => void) {
  const kills: Kill[] = [];
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let restarting: Promise<void> = Promise.resolve();

  function schedule() {
    const { min, max } = KILL_EVERY_S;
    timer = setTimeout(() => void killOne(), (min + Math.random() * (max - min)) * 1_000);
  }

  // The next kill is timed from this one; it waits for this restart if that is slower.
  async function killOne() {
    if (!stopped) schedule();
    await restarting;
    const up = replicas.filter((r) => r.up);
    const victim = up[Math.floor(Math.random() * up.length)];
    if (!victim || stopped) return;
    restarting = (async () => {
      const kill: Kill = { replica: victim.index, at: await victim.kill(), restartMs: NaN };
      kills.push(kill);
      await victim.start();
      kill.restartMs = Date.now() - kill.at;
    })().catch(onError);
    await restarting;
  }

  schedule();
  return {
    kills,
    /** No more kills; resolves once a replica being restarted is up again. */
    async stop(): Promise<Kill[]> {
      stopped = true;
      clearTimeout(timer);
      await restarting;
      return kills;
    },
  };
}
