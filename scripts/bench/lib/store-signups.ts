// The signup half of npm run bench:store: POST /api/subscriptions (multipart, as the site's own
// form sends it) with a new address on every request, from autocannon with 50 connections for a
// 2 s warm-up and then BENCH_STORE_SECONDS (default 10). Given several replicas, autocannon deals
// the connections out round-robin (connection i to replica i mod n: 17, 17 and 16 for three), as a
// balancer spreading kept-alive connections would. Every address answered 2xx (the answer names
// it) is then looked up in the store: one that is missing was acknowledged and lost.
import autocannon from 'autocannon';
import { encodeMultipart } from '../../../server/backend/client';
import { machineBusySeconds } from './cpu';

export const SECONDS = Number(process.env.BENCH_STORE_SECONDS ?? 10);
export const CONNECTIONS = 50;
export const WARMUP_SECONDS = 2;

export interface SignupCase {
  name: string;
  /** The replicas' base URLs. */
  urls: string[];
  /**
   * CPU seconds used so far by each part worth watching (the sites, PostgreSQL), read around the
   * window.
   */
  cpu: Record<string, () => number | undefined>;
  /** Every address the store holds, read after the load. */
  storedEmails: () => Promise<string[]>;
}

export interface SignupResult {
  name: string;
  replicas: number;
  /** 2xx answers in the measured window. */
  accepted: number;
  /** accepted / BENCH_STORE_SECONDS. */
  perSecond: number;
  /**
   * 2xx answers in each whole second of the window, and the fewest: what "sustained" has to clear.
   */
  bySecond: number[];
  slowestSecond: number;
  /** Latency of the 2xx answers, ms (autocannon records only those). */
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  statuses: Record<string, number>;
  /** Distinct addresses answered 2xx, warm-up included, and how many of them the store lacks. */
  acceptedAddresses: number;
  /**
   * 2xx answers beyond one per address (0 unless the generator sent an address twice, which would
   * inflate signups/s).
   */
  repeats: number;
  storedRows: number;
  lost: number;
  /** CPU µs per accepted signup in the window, by part, and this process's (the load generator). */
  cpuMicros: Record<string, number>;
  /**
   * Cores busy with anything else during the window (the machine's busy time from /proc/stat, less
   * the parts above): on a shared machine, a figure taken beside someone's test
   * suite says little, and this says when that happened.
   */
  otherCores: number | undefined;
}

let sequence = 0;

export async function measureSignups({
  name,
  urls,
  cpu,
  storedEmails,
}: SignupCase): Promise<SignupResult> {
  const acceptedAddresses = new Set<string>();
  let answered = 0;
  // 2xx by whole second of the window; undefined in the warm-up
  let perSecond: number[] | undefined;
  let windowStart = 0;
  const run = (duration: number) =>
    autocannon({
      // An array deals the connections out over the URLs (autocannon's lib/run.js); its types say
      // string.
      url: urls as unknown as string,
      connections: CONNECTIONS,
      duration,
      requests: [
        {
          method: 'POST',
          path: '/api/subscriptions',
          setupRequest: (request) => {
            const form = encodeMultipart([
              ['email', `store-${process.pid}-${++sequence}@example.org`],
              ['description', 'npm run bench:store'],
            ]);
            return {
              ...request,
              body: form.body,
              headers: { ...request.headers, 'content-type': form.contentType },
            };
          },
          onResponse: (status, body) => {
            if (status < 200 || status > 299) return;
            answered++;
            acceptedAddresses.add((JSON.parse(body) as { email: string }).email);
            if (perSecond) {
              const second = Math.floor((Date.now() - windowStart) / 1000);
              if (second < perSecond.length) perSecond[second]++;
            }
          },
        },
      ],
    });

  await run(WARMUP_SECONDS);
  perSecond = new Array<number>(SECONDS).fill(0);
  const before = readCpu(cpu);
  windowStart = Date.now();
  const result = await run(SECONDS);
  const after = readCpu(cpu);

  const accepted = result['2xx'];
  const stored = new Set(await storedEmails());
  let lost = 0;
  for (const email of acceptedAddresses) if (!stored.has(email)) lost++;
  const cpuMicros: Record<string, number> = {};
  let ours = 0;
  for (const part of Object.keys(after.parts)) {
    const [start, end] = [before.parts[part], after.parts[part]];
    if (start === undefined || end === undefined) continue;
    ours += end - start;
    if (accepted > 0) cpuMicros[part] = Math.round(((end - start) * 1e6) / accepted);
  }
  const otherCores =
    before.machine === undefined || after.machine === undefined
      ? undefined
      : Math.max(0, after.machine - before.machine - ours) / SECONDS;
  return {
    name,
    replicas: urls.length,
    accepted,
    perSecond: Math.round(accepted / SECONDS),
    bySecond: perSecond,
    slowestSecond: Math.min(...perSecond),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    statuses: Object.fromEntries(
      Object.entries(result.statusCodeStats ?? {}).map(([status, { count }]) => [
        status,
        count ?? 0,
      ]),
    ),
    acceptedAddresses: acceptedAddresses.size,
    repeats: answered - acceptedAddresses.size,
    storedRows: stored.size,
    lost,
    cpuMicros,
    otherCores,
  };
}

/** CPU seconds so far: each part's, this process's, and the whole machine's. */
function readCpu(cpu: SignupCase['cpu']): {
  parts: Record<string, number | undefined>;
  machine: number | undefined;
} {
  const usage = process.cpuUsage();
  const parts = {
    ...Object.fromEntries(Object.entries(cpu).map(([part, read]) => [part, read()])),
    'load generator': (usage.user + usage.system) / 1e6,
  };
  return { parts, machine: machineBusySeconds() };
}
