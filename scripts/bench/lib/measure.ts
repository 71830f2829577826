// How npm run bench measures a case and folds its rounds into one figure, in a module of its own
// so every section of the bench (index.ts) is measured the same way: a warm-up before every
// window, this process's heap collected, autocannon with 50 connections for BENCH_SECONDS, the CPU
// time of the watched processes read around the window, medians over the rounds.
import autocannon from 'autocannon';
import { cpuSeconds } from './cpu';
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

/**
 * A case: its name, what autocannon sends, and the processes whose CPU per request to report, e.g.
 * { site: pid }.
 */
export type Case = [
  name: string,
  options: autocannon.Options,
  watch: Record<string, number | undefined>,
];

export async function measure([name, options, watch]: Case): Promise<Measured> {
  await autocannon({ ...options, connections: CONNECTIONS, duration: WARMUP_SECONDS });
  // Every window starts with this process's heap collected: autocannon records each request, and
  // without this the garbage of the case before (400 000 GETs) is collected inside the next one.
  collectGarbage();
  const before = Object.entries(watch).map(([who, pid]) => [who, pid, cpuSeconds(pid)] as const);
  const result = await autocannon({ ...options, connections: CONNECTIONS, duration: SECONDS });
  const cpuMicros: Record<string, number> = {};
  for (const [who, pid, start] of before) {
    const end = cpuSeconds(pid);
    if (start !== undefined && end !== undefined && result.requests.total > 0)
      cpuMicros[who] = Math.round(((end - start) * 1e6) / result.requests.total);
  }
  return {
    name,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    cpuMicros,
  };
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
    p50: median(rounds.map((r) => r[i].p50)),
    p99: median(rounds.map((r) => r[i].p99)),
    errors: rounds.reduce((n, r) => n + r[i].errors, 0),
    non2xx: rounds.reduce((n, r) => n + r[i].non2xx, 0),
    cpuMicros: Object.fromEntries(
      Object.keys(rounds[0][i].cpuMicros).map((who) => [
        who,
        median(rounds.map((r) => r[i].cpuMicros[who])),
      ]),
    ),
  }));
}

/** global.gc when the bench runs with --expose-gc (its npm script does); otherwise nothing. */
function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}
