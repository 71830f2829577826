// The waitlist form's proof of work (PROOF_OF_WORK=on, decision 0024): on the visitor's first
// focus, key or pointer press in the form, a Web Worker (solver.worker.ts, bundled apart) fetches a
// challenge and solves it; the first load carries only this hook and the worker's URL. The submit
// takes the solution, waiting only if the visitor was faster than the solver. A failed attempt is
// tried once more; after that the signup goes without one.
//
// For measurements (Chromium at 4× CPU slowdown): the solve is timed by the performance entry
// measure 'pow-solve', from the first focus ('pow-start') to the solution ('pow-solved').
import { useCallback, useEffect, useRef } from 'react';
import { useApiClient } from '../api-client';
import solverUrl from './solver.worker.ts?worker-url';

/** Fetches a challenge from the URL and solves it in a worker: the `altcha` field's value. */
const solve = (challengeUrl: string) =>
  new Promise<string>((resolve, reject) => {
    const worker = new Worker(new URL(solverUrl, import.meta.url));
    const done = (proof?: string | null) => {
      worker.terminate();
      if (proof) resolve(proof);
      else reject(new Error('The proof-of-work worker found no solution'));
    };
    worker.onmessage = (event: MessageEvent<string | null>) => done(event.data);
    worker.onerror = () => done();
    worker.postMessage(challengeUrl);
  });

export interface ProofOfWork {
  /** Starts fetching and solving a challenge, once; handlers of the form's first interaction. */
  start(): void;
  /** The `altcha` field for the signup being sent; undefined when off or when solving failed. */
  take(): Promise<string | undefined>;
}

export function useProofOfWork(enabled: boolean): ProofOfWork {
  const { challengeUrl } = useApiClient();
  const pending = useRef<Promise<string | undefined> | undefined>(undefined);
  // A focus React gives a field while the page hydrates (autoFocus) is not the visitor's.
  const hydrated = useRef(false);
  useEffect(() => {
    hydrated.current = true;
  }, []);

  const start = useCallback(() => {
    if (!enabled || pending.current || !hydrated.current) return;
    // Optional calls: jsdom, where the tests run, has no User Timing.
    performance.mark?.('pow-start');
    pending.current = solve(challengeUrl)
      .catch(() => solve(challengeUrl))
      .then(
        (proof) => {
          performance.mark?.('pow-solved');
          performance.measure?.('pow-solve', 'pow-start', 'pow-solved');
          return proof;
        },
        () => undefined,
      );
  }, [enabled, challengeUrl]);

  const take = useCallback(async () => {
    if (!enabled) return undefined;
    hydrated.current = true;
    start();
    const proof = pending.current;
    // A solution is good for one signup: another needs a new challenge.
    pending.current = undefined;
    return proof;
  }, [enabled, start]);

  return { start, take };
}
