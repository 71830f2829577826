// How npm run bench measures a case and folds its rounds into one figure, in a module of its own
// so every section of the bench (index.ts) is measured the same way: a warm-up before every
// window, then the load generator of load.ts (a process of its own, 50 connections) for
// BENCH_SECONDS, the CPU time of the watched processes read around the window, medians over the
// rounds.
import { cpuSeconds } from './cpu';
import { load, toHundredths, type LoadOptions } from './load';
import { median } from './stats';

export const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
export const CONNECTIONS = 50;
/** Before every window, so no case is measured on processes that sat idle while the others ran. */
export const WARMUP_SECONDS = 2;

export interface Measured {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** CPU µs per request of each watched process (Linux only). */
  cpuMicros: Record<string, number>;
}

/** A case's figures as one row of the printed table. */
export const tableRow = (r: Measured) => ({
  case: r.name,
  'req/s': r.rps,
  'p50 ms': r.p50,
  'p99 ms': r.p99,
  errors: r.errors,
  non2xx: r.non2xx,
});

/** What a case sends: load.ts's options but the window's length and the connections. */
export type Traffic = Omit<LoadOptions, 'seconds' | 'connections'>;

/**
 * A case: its name, what it sends, and the processes whose CPU per request to report, e.g.
 * { site: pid }.
 */
export type Case = [name: string, traffic: Traffic, watch: Record<string, number | undefined>];

export async function measure([name, traffic, watch]: Case): Promise<Measured> {
  await load({ ...traffic, connections: CONNECTIONS, seconds: WARMUP_SECONDS });
  const before = Object.entries(watch).map(([who, pid]) => [who, pid, cpuSeconds(pid)] as const);
  const result = await load({ ...traffic, connections: CONNECTIONS, seconds: SECONDS });
  const cpuMicros: Record<string, number> = {};
  for (const [who, pid, start] of before) {
    const end = cpuSeconds(pid);
    if (start !== undefined && end !== undefined && result.requests > 0)
      cpuMicros[who] = Math.round(((end - start) * 1e6) / result.requests);
  }
  const { rps, p50, p99, errors, non2xx } = result;
  return { name, rps, p50, p99, errors, non2xx, cpuMicros };
}

/**
 * Measures every case once per round, in the order `orderOf(round)` gives (indexes into `cases`);
 * each round's results come back in the cases' own order, whatever order they ran in.
 */
export async function inRounds(
  cases: Case[],
  rounds: number,
  orderOf: (round: number) => number[],
): Promise<Measured[][]> {
  const measured: Measured[][] = [];
  for (let round = 0; round < rounds; round++) {
    const results: Measured[] = [];
    for (const i of orderOf(round)) results[i] = await measure(cases[i]);
    measured.push(results);
  }
  return measured;
}

/** Each case's median over the rounds (what the tables show); errors and non-2xx are summed. */
export function mediansOf(cases: Case[], rounds: Measured[][]): Measured[] {
  return cases.map(([name], i) => ({
    name,
    rps: Math.round(median(rounds.map((r) => r[i].rps))),
    p50: toHundredths(median(rounds.map((r) => r[i].p50))),
    p99: toHundredths(median(rounds.map((r) => r[i].p99))),
    errors: rounds.reduce((n, r) => n + r[i].errors, 0),
    non2xx: rounds.reduce((n, r) => n + r[i].non2xx, 0),
    cpuMicros: Object.fromEntries(
      Object.keys(rounds[0][i].cpuMicros).map((who) => [
        who,
        Math.round(median(rounds.map((r) => r[i].cpuMicros[who]))),
      ]),
    ),
  }));
}
