// npm run bench:mainthread: how long the browser's main thread
// is blocked while a page loads and settles, this build against a baseline build of an earlier
// commit, in the same run on the same machine. A phone's main thread busy in long tasks (over
// 50 ms) is a page that does not answer a tap; Lighthouse's TBT hints at it from a simulation,
// this measures it in a Chromium trace over the whole load, hydration and after.
//   Baseline: BENCH_BASELINE (default 4a67717, the commit before the main-thread work), built by
//   lib/baseline.ts into a temp folder that is removed at the end. Current: this checkout's dist/.
//   Each load, on `/` and `/activate`: Debian's Chromium (CHROMIUM_PATH) driven on a DevTools pipe
//   with no script agent in the page, as a visitor's browser has none (lib/cdp-pipe.ts says why not
//   Playwright); a fresh browser context (no cache), 412×823 at 1.75 dppx, mobile, motion not
//   reduced, CPU slowed 4× (CDP Emulation.setCPUThrottlingRate); 2 s for the new window to
//   settle; then a trace (CDP Tracing on the browser, the fewest categories: traceCategories())
//   from before navigation until 6 s after the load event. From the trace, on the main thread of
//   the renderer whose main frame navigated to the site (its navigationStart mark): the sum, count
//   and longest of the top-level tasks over 50 ms from navigation start until the page is quiet,
//   3 s after both its load event and the end of its last long task, at most 20 s after navigation
//   start (lib/mainthread-trace.ts). A trace that ends before that point is taken again, longer.
//   BENCH_MAINTHREAD_DETAIL=1 lists each long task's largest parts (the extra categories this needs
//   lengthen the tasks they name).
//   BENCH_MAINTHREAD_RUNS loads (default 9: most loads are 0 or one task just over 50 ms, so the
//   median of fewer is a coin toss) of each site and route, baseline and current in turn
//   (which goes first alternates by round), after one uncounted warm-up load of each site; the
//   table shows the medians and the ratio current/baseline. Target: ratio ≤ 0.25 on both routes
//   (if the baseline's median is 0, current ≤ 50 ms). Exits 1 on a miss or an error. A second
//   table gives the same loads without the navigation's commit (the task in which the browser
//   makes the document, long in many loads of the one-line floor page too), for information.
// About 9 minutes with the defaults (a load takes about 9 s), plus 10 to 20 s for the baseline's
// build.
import { setTimeout as sleep } from 'node:timers/promises';
import { CHROMIUM_FLAGS, CHROMIUM_PATH as CHROMIUM } from '../chromium-flags';
import { startBuiltServer } from '../lib/launch/server';
import { buildBaseline, type BaselineBuild } from './lib/baseline';
import { launchChromium, openPhonePage, withTimeout, type CdpPipe } from './lib/cdp-pipe';
import { startFloorPage } from './lib/floor-page';
import {
  LONG_TASK_MS,
  longTasksOfLoad,
  QUIET_CAP_MS,
  QUIET_MS,
  traceCategories,
  type MainThreadLoad,
  type TraceEvent,
} from './lib/mainthread-trace';
import { median } from './lib/stats';

const BASELINE = process.env.BENCH_BASELINE || '4a67717';
const RUNS = Math.max(1, Number(process.env.BENCH_MAINTHREAD_RUNS ?? 9) || 9);
const ROUTES = ['/', '/activate'];
const TARGET_RATIO = 0.25;
/** BENCH_MAINTHREAD_DETAIL=1: each long task's largest parts (more trace categories, at a cost). */
const DETAIL = Boolean(process.env.BENCH_MAINTHREAD_DETAIL);
const CPU_SLOWDOWN = 4;
/**
 * How long the trace goes on after the load event: the quiet wait and room for hydration at idle.
 * A load still busy at its end is traced again up to the quiet cap (longTasksOfLoad).
 */
const TRACE_AFTER_LOAD_MS = QUIET_MS + 3_000;
/** One load, from a new context to the trace read, may take no longer than this. */
const LOAD_TIMEOUT_MS = 60_000;
/**
 * A load whose trace cannot tell (longTasksOfLoad) is measured again, up to this many times in all.
 */
const ATTEMPTS = 3;
/**
 * Pages in a headless window are never hidden, but timers and renderers must not be slowed as
 * background ones either.
 */
const BACKGROUND_FLAGS = [
  '--disable-background-timer-throttling',
  '--disable-renderer-backgrounding',
  '--disable-backgrounding-occluded-windows',
];
/** Wait after opening a window, before tracing and navigating (see load()). */
const SETTLE_MS = 2_000;

/** The whole trace, read from the stream Tracing.end leaves. */
async function readTrace(
  browser: CdpPipe,
  complete: Promise<{ stream: string }>,
): Promise<TraceEvent[]> {
  const { stream } = await withTimeout(complete, 30_000, 'trace');
  const chunks: string[] = [];
  for (;;) {
    const { data, eof, base64Encoded } = await browser.send<{
      data: string;
      eof: boolean;
      base64Encoded?: boolean;
    }>('IO.read', {
      handle: stream,
      size: 1 << 20,
    });
    chunks.push(base64Encoded ? Buffer.from(data, 'base64').toString('utf8') : data);
    if (eof) break;
  }
  await browser.send('IO.close', { handle: stream });
  const trace = JSON.parse(chunks.join('')) as TraceEvent[] | { traceEvents: TraceEvent[] };
  return Array.isArray(trace) ? trace : trace.traceEvents;
}

/**
 * One load of `route` in a fresh browser context (no cache), traced from before navigation until
 * `traceAfterLoadMs` after its load event. The page is driven with the Page and Emulation domains
 * only; it runs no script of the bench's.
 */
async function load(
  browser: CdpPipe,
  origin: string,
  route: string,
  traceAfterLoadMs: number,
): Promise<ReturnType<typeof longTasksOfLoad>> {
  const tab = await openPhonePage(browser);
  try {
    const page = tab.send;
    await page('Emulation.setEmulatedMedia', {
      features: [{ name: 'prefers-reduced-motion', value: 'no-preference' }],
    });
    await page('Emulation.setCPUThrottlingRate', { rate: CPU_SLOWDOWN });
    // A new window's first second has the browser busy on this machine's two cores; let it pass.
    await sleep(SETTLE_MS);
    // Traced from the browser, not the page: tracing follows the renderer process the navigation
    // moves to, from its first event.
    const complete = browser.once<{ stream: string }>('Tracing.tracingComplete');
    await browser.send('Tracing.start', {
      traceConfig: { includedCategories: traceCategories(DETAIL) },
      transferMode: 'ReturnAsStream',
    });
    try {
      const loaded = browser.once('Page.loadEventFired');
      await page('Page.navigate', { url: `${origin}${route}` });
      await withTimeout(loaded, 30_000, `${route}: the load event`);
      await sleep(traceAfterLoadMs);
    } finally {
      // Also on a failure: a trace left running would go on recording into the next load.
      await browser.send('Tracing.end');
    }
    return longTasksOfLoad(await readTrace(browser, complete), origin);
  } finally {
    await tab.close();
  }
}

/** Prints rows under a header, each column as wide as its widest cell. */
function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((_, i) => Math.max(...[header, ...rows].map((row) => row[i].length)));
  for (const row of [header, ...rows])
    console.log(`  ${row.map((cell, i) => cell.padEnd(widths[i])).join('  ')}`.trimEnd());
}

/** "k/n": in how many of the loads the navigation's commit was a long task. */
function commitLongIn(loads: MainThreadLoad[]): string {
  return `${loads.filter((l) => l.commitMs > 0).length}/${loads.length}`;
}

/** The floor is a one-line page (floor-page.ts), loaded once a round as `/`. */
type Site = 'baseline' | 'current' | 'floor';

async function main(): Promise<void> {
  const started = Date.now();
  let baseline: BaselineBuild | undefined;
  const stops: (() => Promise<unknown>)[] = [];
  let browser: CdpPipe | undefined;
  let failed = false;
  try {
    console.log(`Building the baseline ${BASELINE}…`);
    baseline = buildBaseline(BASELINE);
    const settings = { env: { LOG_LEVEL: 'warn' }, logFile: 'site.log' };
    const baselineSite = await startBuiltServer({ ...settings, root: baseline.root });
    stops.push(baselineSite.stop);
    const currentSite = await startBuiltServer(settings);
    stops.push(currentSite.stop);
    const floor = await startFloorPage(currentSite.url);
    stops.push(floor.stop);
    const origins: Record<Site, string> = {
      baseline: baselineSite.url,
      current: currentSite.url,
      floor: floor.url,
    };
    browser = launchChromium(CHROMIUM, [...CHROMIUM_FLAGS, ...BACKGROUND_FLAGS]);
    const measure = async (site: Site, route: string): Promise<MainThreadLoad> => {
      let traceAfterLoadMs = TRACE_AFTER_LOAD_MS;
      for (let attempt = 1; ; attempt++) {
        const result = await withTimeout(
          load(browser!, origins[site], route, traceAfterLoadMs),
          LOAD_TIMEOUT_MS,
          `${site} ${route}`,
        );
        if (!('retry' in result)) return result;
        if (attempt === ATTEMPTS)
          throw new Error(`${site} ${route}: ${result.retry}, in ${ATTEMPTS} traces`);
        console.log(
          `  ${route.padEnd(10)} ${site.padEnd(8)} ${result.retry}; attempt ${attempt + 1} of ${ATTEMPTS}`,
        );
        if (result.tooShort) traceAfterLoadMs = QUIET_CAP_MS;
      }
    };

    console.log(
      `Main thread while loading, CPU ${CPU_SLOWDOWN}× slower, ${RUNS} load${RUNS > 1 ? 's' : ''} of each; baseline ${baseline.ref}`,
    );
    // A first load of each site warms its server (the first SSR) and the browser; not counted.
    for (const site of ['baseline', 'current'] as const) await measure(site, ROUTES[0]);
    const loads: Record<Site, Record<string, MainThreadLoad[]>> = {
      baseline: {},
      current: {},
      floor: {},
    };
    const record = async (site: Site, route: string, round: number) => {
      const result = await measure(site, route);
      (loads[site][route] ??= []).push(result);
      console.log(
        `  ${route.padEnd(10)} ${site.padEnd(8)} round ${round + 1}: ${Math.round(result.longMs)} ms in ${result.count} long task${result.count === 1 ? '' : 's'}` +
          ` (longest ${Math.round(result.longestMs)} ms), quiet at ${(result.quietMs / 1000).toFixed(1)} s${result.capped ? ' (capped)' : ''}`,
      );
      // BENCH_MAINTHREAD_DETAIL=1: each long task with its largest parts, to see what to work on.
      if (DETAIL)
        for (const task of result.tasks)
          console.log(
            `      at ${task.atMs.toFixed(0)} ms: ${task.ms.toFixed(0)} ms${task.commit ? ", the navigation's commit" : ''} (${task.parts})`,
          );
    };
    for (let round = 0; round < RUNS; round++) {
      for (const route of ROUTES) {
        const order: Site[] = round % 2 ? ['current', 'baseline'] : ['baseline', 'current'];
        for (const site of order) await record(site, route, round);
      }
      await record('floor', '/', round);
    }

    console.log(
      `\nLong tasks (> ${LONG_TASK_MS} ms) on the renderer main thread, median of ${RUNS}: ms (count)`,
    );
    const header = ['route', `baseline ${baseline.ref}`, 'current', 'ratio', 'target', ''];
    const rows = ROUTES.map((route) => {
      const figures = (site: Site) => {
        const all = loads[site][route];
        return { ms: median(all.map((l) => l.longMs)), count: median(all.map((l) => l.count)) };
      };
      const base = figures('baseline');
      const current = figures('current');
      const ok = base.ms === 0 ? current.ms <= LONG_TASK_MS : current.ms / base.ms <= TARGET_RATIO;
      failed ||= !ok;
      return [
        route,
        `${Math.round(base.ms)} (${base.count})`,
        `${Math.round(current.ms)} (${current.count})`,
        base.ms === 0 ? 'n/a' : (current.ms / base.ms).toFixed(2),
        base.ms === 0 ? `≤ ${LONG_TASK_MS} ms` : `≤ ${TARGET_RATIO}`,
        ok ? '✓' : '✗',
      ];
    });
    printTable(header, rows);
    const floorLoads = loads.floor['/'];
    const floorMs = median(floorLoads.map((l) => l.longMs));
    // The floor against each baseline: where it is near the target on its own, the browser leaves
    // a page no room, and the run says so rather than leave the reader to work it out.
    const floorRatios = ROUTES.map((route) => {
      const base = median(loads.baseline[route].map((l) => l.longMs));
      return `${(base === 0 ? 0 : floorMs / base).toFixed(2)}× ${route}'s`;
    });
    console.log(
      `  The floor, a page of one line with the site's headers: ${Math.round(floorMs)} ms` +
        ` (loads: ${floorLoads.map((l) => Math.round(l.longMs)).join(', ')}; the commit long in ${commitLongIn(floorLoads)}),` +
        ` ${floorRatios.join(' and ')} baseline. What is left of current at or under it is the browser's own.`,
    );
    // The same loads without the navigation's commit, which no page can take off: it is the
    // browser making the document in a new renderer (mainthread-trace.ts, floor-page.ts). Shown
    // beside the target, not instead of it.
    console.log(
      `\nThe same without the navigation's commit (the floor's cost), median of ${RUNS}: ms; loads whose commit was a long task`,
    );
    printTable(
      ['route', 'baseline', 'current', 'ratio', 'commit long: baseline', 'current'],
      ROUTES.map((route) => {
        const withoutCommit = (site: Site) =>
          median(loads[site][route].map((l) => l.longMs - l.commitMs));
        const base = withoutCommit('baseline');
        const current = withoutCommit('current');
        return [
          route,
          `${Math.round(base)}`,
          `${Math.round(current)}`,
          base === 0 ? 'n/a' : (current / base).toFixed(2),
          commitLongIn(loads.baseline[route]),
          commitLongIn(loads.current[route]),
        ];
      }),
    );
    console.log(
      `\n${failed ? 'Target missed' : 'Targets met'} (${Math.round((Date.now() - started) / 1000)} s)`,
    );
  } finally {
    await browser?.close().catch(() => {});
    await Promise.all(stops.map((stop) => stop()));
    baseline?.remove();
  }
  process.exitCode = failed ? 1 : 0;
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
