// npm run bench:login-flood: what a flood of wrong console logins costs the visitors. The built
// site on SQLite (lib/flood-site.ts) gets open-loop load (lib/open-loop.ts): 200 page requests
// and 20 signups a second, for BENCH_SECONDS (default 20) without, then with, 500 wrong logins a
// second for the operator's account (lib/flood-logins.ts: from a process of its own, each from
// the next address of a pool of 131 072); each phase after 3 s of warm-up. Then exactly 400 more
// refused logins on their own, the throttle engaged, and the bytes the site wrote to disk
// meanwhile. Targets: the background's p99 with the flood at most 1.5 × without it, no background
// request failed, and the 400 refusals write under 200 kB. Exits non-zero on a miss.
import fs from 'node:fs';
import { cpuSeconds } from './lib/cpu';
import { writeBytes } from './lib/disk-writes';
import { floodFromElsewhere, loginFlood } from './lib/flood-logins';
import { settle, startFloodSite, type FloodSite } from './lib/flood-site';
import {
  runOpenLoop,
  signupStream,
  TIMEOUT_MS,
  type Stream,
  type StreamResult,
} from './lib/open-loop';
import { writeReport } from './lib/report';
import { percentile } from './lib/stats';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const WARM_UP_SECONDS = 3;
const RATES = { pages: 200, signups: 20, logins: 500 };
const DISK_STEP_LOGINS = 400;
const TARGETS = { p99Ratio: 1.5, diskBytes: 200_000 };
const THROTTLED_METRIC = 'console_logins_throttled_total';

/** The visitors: the home page, and signups with addresses never used before. */
function background(run: string): Stream[] {
  return [
    {
      name: 'pages',
      perSecond: RATES.pages,
      request: () => ({ method: 'GET', path: '/', headers: {} }),
    },
    signupStream(`flood-${run}`, RATES.signups, Math.max(SECONDS, WARM_UP_SECONDS)),
  ];
}

interface Phase {
  results: StreamResult[];
  wallSeconds: number;
  cpuSeconds: number;
  /** Logins the site itself counted as throttled, whether or not their answer arrived. */
  throttled: number | undefined;
}

/** Flood logins sent so far: each run starts at the next address of the pool. */
let floodAddresses = 0;

/** The background for `seconds`, with a flood from another process when `logins` is given. */
async function loads(
  site: FloodSite,
  run: string,
  seconds: number,
  logins?: number,
  control = false,
) {
  const floods = logins
    ? [
        floodFromElsewhere({
          control,
          origin: site.origin,
          publicOrigin: site.publicOrigin,
          perSecond: logins,
          seconds,
          first: floodAddresses,
        }),
      ]
    : [];
  floodAddresses += (logins ?? 0) * seconds;
  const [visitors, ...flood] = await Promise.all([
    runOpenLoop(site.origin, background(run), seconds),
    ...floods,
  ]);
  return [...visitors, ...flood];
}

async function phase(
  site: FloodSite,
  run: string,
  seconds: number,
  logins?: number,
  control = false,
): Promise<Phase> {
  const cpuBefore = cpuSeconds(site.pid);
  const throttledBefore = await site.counter(THROTTLED_METRIC);
  const started = performance.now();
  const results = await loads(site, run, seconds, logins, control);
  const wallSeconds = (performance.now() - started) / 1000;
  const cpuAfter = cpuSeconds(site.pid);
  const throttledAfter = await site.counter(THROTTLED_METRIC);
  if (cpuBefore === undefined || cpuAfter === undefined)
    throw new Error('no CPU time for the site (needs Linux /proc)');
  return {
    results,
    wallSeconds,
    cpuSeconds: cpuAfter - cpuBefore,
    throttled:
      throttledBefore === undefined || throttledAfter === undefined
        ? undefined
        : throttledAfter - throttledBefore,
  };
}

/**
 * The background's figures in a phase, pages and signups together. A request with no answer
 * counts in the percentiles as the timeout, the least it would have taken.
 */
function summary({ results }: Phase) {
  const streams = results.filter((r) => r.name !== 'logins');
  const sum = (of: (r: StreamResult) => number) => streams.reduce((n, r) => n + of(r), 0);
  const timeouts = sum((r) => r.timeouts);
  const latencies = [
    ...streams.flatMap((r) => r.latencies),
    ...Array.from({ length: timeouts }, () => TIMEOUT_MS),
  ];
  const errorAnswers = sum((r) => [...r.statuses].reduce((n, [s, c]) => n + (s >= 400 ? c : 0), 0));
  return {
    sent: sum((r) => r.sent),
    failed: timeouts + sum((r) => r.errors) + errorAnswers,
    timeouts,
    errors: sum((r) => r.errors),
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    max: Math.max(...latencies),
    sendLagP99: percentile(
      streams.flatMap((r) => r.sendLags),
      0.99,
    ),
  };
}

const byStatus = (result: StreamResult) =>
  Object.fromEntries([...result.statuses].sort(([a], [b]) => a - b));
const statusText = (result: StreamResult) =>
  [
    ...Object.entries(byStatus(result)).map(([status, n]) => `${status}: ${n}`),
    ...(result.timeouts ? [`timeout: ${result.timeouts}`] : []),
    ...(result.errors ? [`error: ${result.errors}`] : []),
  ].join(', ');
const ms = (value: number) => `${value.toFixed(1)} ms`;
const kB = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;

async function main(): Promise<void> {
  const site = await startFloodSite();
  const stopOnSignal = () => void site.stop().then(() => process.exit(130));
  process.once('SIGINT', stopOnSignal);
  process.once('SIGTERM', stopOnSignal);
  try {
    console.log(
      `login flood: ${RATES.pages} pages/s + ${RATES.signups} signups/s, then + ${RATES.logins} wrong logins/s; ${SECONDS} s each after ${WARM_UP_SECONDS} s of warm-up`,
    );
    await loads(site, 'warm-quiet', WARM_UP_SECONDS);
    const quiet = await phase(site, 'quiet', SECONDS);
    await loads(site, 'warm-flood', WARM_UP_SECONDS, RATES.logins);
    const flooded = await phase(site, 'flood', SECONDS, RATES.logins);
    // The floor: as many requests for the cheapest answer the site has.
    const controlled = await phase(site, 'control', SECONDS, RATES.logins, true);

    // The disk step: nothing else runs, the throttle is engaged.
    const settled = await settle(site.pid);
    const writtenBefore = writeBytes(site.pid);
    const logBefore = fs.statSync(site.logFile).size;
    const [step] = await runOpenLoop(
      site.origin,
      [loginFlood(site.publicOrigin, DISK_STEP_LOGINS, floodAddresses)],
      1,
    );
    await new Promise((r) => setTimeout(r, 1_000)); // what the site writes just after its answers
    const written = writeBytes(site.pid) - writtenBefore;
    const logWritten = fs.statSync(site.logFile).size - logBefore;

    const before = summary(quiet);
    const during = summary(flooded);
    const logins = flooded.results.find((r) => r.name === 'logins')!;
    // The site's own count when it exports one: a login whose client gave up cost it as much.
    const refused =
      (flooded.throttled ?? logins.statuses.get(429) ?? 0) + (logins.statuses.get(401) ?? 0);
    const cpuPerSecondQuiet = quiet.cpuSeconds / quiet.wallSeconds;
    const floodCpu = flooded.cpuSeconds - cpuPerSecondQuiet * flooded.wallSeconds;
    const cpuPerRefusal = refused ? (floodCpu / refused) * 1_000_000 : NaN;
    const ratio = during.p99 / before.p99;
    const floor = summary(controlled);
    const floorRatio = floor.p99 / before.p99;
    const controlCpu =
      ((controlled.cpuSeconds - cpuPerSecondQuiet * controlled.wallSeconds) /
        (RATES.logins * SECONDS)) *
      1_000_000;

    const misses: string[] = [];
    if (!(ratio <= TARGETS.p99Ratio))
      misses.push(
        `background p99 with the flood is ${ratio.toFixed(2)}× without (target ≤ ${TARGETS.p99Ratio}×)`,
      );
    for (const [when, s] of [
      ['without', before],
      ['with', during],
    ] as const)
      if (s.failed) misses.push(`${s.failed} background requests failed ${when} the flood`);
    if (refused === 0) misses.push('no login was refused: did the flood reach the login check?');
    if (step.statuses.get(429) !== DISK_STEP_LOGINS)
      misses.push(
        `the disk step's ${DISK_STEP_LOGINS} logins were not all 429: ${statusText(step)}`,
      );
    if (!(written < TARGETS.diskBytes))
      misses.push(
        `${DISK_STEP_LOGINS} refused logins wrote ${kB(written)} (target < ${kB(TARGETS.diskBytes)})`,
      );

    const line = (name: string, s: ReturnType<typeof summary>) =>
      `${name}: background ${s.sent} sent, ${s.failed} failed (${s.timeouts} timeouts, ${s.errors} errors); p50 ${ms(s.p50)}, p99 ${ms(s.p99)}, max ${ms(s.max)}; the generator sent late by ${ms(s.sendLagP99)} at p99`;
    console.log(line('no flood', before));
    console.log(line('flood   ', during));
    console.log(line('control ', floor));
    console.log(`p99 ratio: ${ratio.toFixed(2)}× (target ≤ ${TARGETS.p99Ratio}×)`);
    console.log(
      `the floor: ${RATES.logins} GET /healthz a second instead of the logins, ${floorRatio.toFixed(2)}× (${controlCpu.toFixed(0)} µs of site CPU each)`,
    );
    console.log(
      `logins during the flood: ${statusText(logins)}; the site counted ${flooded.throttled ?? 'no metric of'} throttled`,
    );
    console.log(
      `site CPU: ${cpuPerSecondQuiet.toFixed(3)} s/s without the flood, ${(flooded.cpuSeconds / flooded.wallSeconds).toFixed(3)} s/s with it; ${cpuPerRefusal.toFixed(0)} µs per refused login`,
    );
    console.log(
      `disk: ${DISK_STEP_LOGINS} refused logins (${statusText(step)}) wrote ${kB(written)}, the log file grew ${kB(logWritten)} (target < ${kB(TARGETS.diskBytes)})${settled ? '' : '; the site had not stopped writing before the step'}`,
    );

    const table = [
      '| Login flood, SQLite | Without | With 500 wrong logins/s |',
      '| --- | --- | --- |',
      `| Background p50 / p99 / max | ${ms(before.p50)} / ${ms(before.p99)} / ${ms(before.max)} | ${ms(during.p50)} / ${ms(during.p99)} / ${ms(during.max)} |`,
      `| Background sent / failed | ${before.sent} / ${before.failed} | ${during.sent} / ${during.failed} |`,
      `| p99 with / without (target ≤ ${TARGETS.p99Ratio}×) | | ${ratio.toFixed(2)}× |`,
      `| The floor: ${RATES.logins} GET /healthz/s instead, p99 / CPU each | | ${ms(floor.p99)}, ${floorRatio.toFixed(2)}× / ${controlCpu.toFixed(0)} µs |`,
      `| Logins by answer | | ${statusText(logins)} |`,
      `| Site CPU per refused login | | ${cpuPerRefusal.toFixed(0)} µs |`,
      `| Written by ${DISK_STEP_LOGINS} refused logins (target < ${kB(TARGETS.diskBytes)}) | | ${kB(written)} (the log file grew ${kB(logWritten)}) |`,
    ];
    console.log(`\n${table.join('\n')}\n`);
    writeReport('login-flood', {
      seconds: SECONDS,
      rates: RATES,
      withoutFlood: before,
      withFlood: during,
      p99Ratio: ratio,
      control: { ...floor, p99Ratio: floorRatio, cpuMicrosecondsEach: controlCpu },
      logins: { byStatus: byStatus(logins), timeouts: logins.timeouts, errors: logins.errors },
      throttledBySite: flooded.throttled,
      cpuMicrosecondsPerRefusedLogin: cpuPerRefusal,
      diskStep: { logins: byStatus(step), bytesWritten: written, logBytes: logWritten, settled },
      misses,
    });
    for (const miss of misses) console.log(`MISS ${miss}`);
    if (misses.length === 0) console.log('all targets met');
    process.exitCode = misses.length ? 1 : 0;
  } finally {
    await site.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
