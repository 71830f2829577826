// npm run bench:mainthread (issue 25, "A main thread at rest"): how long the browser's main thread
// is blocked while a page loads and settles, this build against a baseline build of an earlier
// commit, in the same run on the same machine. A phone's main thread busy in long tasks (over
// 50 ms) is a page that does not answer a tap; Lighthouse's TBT hints at it from a simulation,
// this measures it in a Chromium trace over the whole load, hydration and after.
//   Baseline: BENCH_BASELINE (default 4a67717, the commit before the main-thread work), built by
//   baseline.ts into a temp folder that is removed at the end. Current: this checkout's dist/.
//   Each load, on `/` and `/activate`: Debian's Chromium through playwright-core (CHROMIUM_PATH),
//   a fresh browser context (no cache), 412×823 at 1.75 dppx, mobile, motion not reduced, CPU
//   slowed 4× (CDP Emulation.setCPUThrottlingRate); 2 s for the new window to settle; then a
//   trace (CDP Tracing on the browser's session) from before navigation until the page is quiet:
//   3 s after both the load event and the end of the last long task the page saw (a
//   PerformanceObserver for 'longtask' set up by an init script), at most 20 s after navigation
//   start. From the trace, on the main thread of the renderer whose main frame navigated to the
//   site (its navigationStart mark): the sum, count and longest of the top-level tasks over 50 ms
//   from navigation start to that quiet point.
//   BENCH_MAINTHREAD_DETAIL=1 lists each long task's largest parts.
//   BENCH_MAINTHREAD_RUNS loads (default 5) of each site and route, baseline and current in turn
//   (which goes first alternates by round), after one uncounted warm-up load of each site; the
//   table shows the medians and the ratio current/baseline. Target: ratio ≤ 0.25 on both routes
//   (if the baseline's median is 0, current ≤ 50 ms). Exits 1 on a miss or an error.
// About 3 minutes with the defaults (a load takes 6 to 9 s), plus 10 to 20 s for the baseline's build.
import type { Browser } from 'playwright-core';
import { chromium } from 'playwright-core';
import { CHROMIUM_FLAGS } from '../chromium-flags';
import { startSiteProcess } from '../site-process';
import { buildBaseline, type BaselineBuild } from './baseline';
import { median } from './stats';
import { LONG_TASK_MS, longTasksOfLoad, TRACE_CATEGORIES, type MainThreadLoad, type TraceEvent } from './mainthread-trace';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const BASELINE = process.env.BENCH_BASELINE || '4a67717';
const RUNS = Math.max(1, Number(process.env.BENCH_MAINTHREAD_RUNS ?? 5) || 5);
const ROUTES = ['/', '/activate'];
const TARGET_RATIO = 0.25;
const CPU_SLOWDOWN = 4;
/** Quiet: this long with no new long task (and after the load event)… */
const QUIET_MS = 3_000;
/** …or this long after navigation start, whichever comes first. */
const QUIET_CAP_MS = 20_000;
/** One load, from a new context to the trace read, may take no longer than this. */
const LOAD_TIMEOUT_MS = 60_000;
/** A load whose trace lacks the page's navigation start is measured again, up to this many times in all. */
const ATTEMPTS = 3;
/** Wait after opening a window, before tracing and navigating (see load()). */
const SETTLE_MS = 2_000;

/**
 * Runs in the page before its own scripts (a string: a function would be serialised with the
 * helpers tsx adds to it). `window.__mainthreadQuiet` resolves with the quiet point, in ms since
 * navigation start (performance.now()).
 */
const QUIET_SCRIPT = `(() => {
  if (window !== window.top) return;
  const QUIET_MS = ${QUIET_MS}, CAP_MS = ${QUIET_CAP_MS};
  let lastEnd = 0, loadEnd = -1, longTasks = 0, timer, done;
  window.__mainthreadQuiet = new Promise((resolve) => { done = resolve; });
  const finish = () => done({ at: performance.now(), longTasks, capped: performance.now() >= CAP_MS });
  const arm = () => {
    clearTimeout(timer);
    if (loadEnd < 0) return;
    const quietAt = Math.min(Math.max(lastEnd, loadEnd) + QUIET_MS, CAP_MS);
    timer = setTimeout(() => (performance.now() >= quietAt ? finish() : arm()), Math.max(0, quietAt - performance.now()));
  };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) { lastEnd = Math.max(lastEnd, entry.startTime + entry.duration); longTasks++; }
    arm();
  }).observe({ type: 'longtask', buffered: true });
  addEventListener('load', () => { loadEnd = performance.now(); arm(); });
  setTimeout(finish, Math.max(0, CAP_MS - performance.now()));
})();`;

interface Quiet {
  at: number;
  longTasks: number;
  capped: boolean;
}

interface Load extends MainThreadLoad {
  quietMs: number;
  capped: boolean;
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * One load of `route` in a fresh context, traced until the page is quiet; undefined when the
 * trace lacks the page's navigation start (see longTasksOfLoad).
 */
async function load(browser: Browser, origin: string, route: string): Promise<Load | undefined> {
  const context = await browser.newContext({
    viewport: { width: 412, height: 823 },
    isMobile: true,
    deviceScaleFactor: 1.75,
    reducedMotion: 'no-preference',
  });
  try {
    await context.addInitScript(QUIET_SCRIPT);
    const page = await context.newPage();
    await (await context.newCDPSession(page)).send('Emulation.setCPUThrottlingRate', { rate: CPU_SLOWDOWN });
    // Each new context is a new window, whose omnibox popup (a WebUI page in a renderer of its
    // own) takes about a second of CPU over its first 0.8 s: let it finish before the load begins,
    // or it competes with the page for this machine's two cores.
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    // The browser's session, not the page's: tracing for a page follows a new renderer process
    // only once it is known, so the first ~200 ms of the page's own process could be missing.
    const cdp = await browser.newBrowserCDPSession();
    try {
      const complete = new Promise<string>((resolve) => cdp.once('Tracing.tracingComplete', (event) => resolve(event.stream!)));
      await cdp.send('Tracing.start', { traceConfig: { includedCategories: TRACE_CATEGORIES }, transferMode: 'ReturnAsStream' });
      let quiet: Quiet;
      try {
        await page.goto(`${origin}${route}`, { waitUntil: 'load', timeout: 30_000 });
        quiet = await withTimeout(
          page.evaluate(() => (window as unknown as { __mainthreadQuiet: Promise<Quiet> }).__mainthreadQuiet),
          QUIET_CAP_MS + 5_000,
          `${route}: waiting for quiet`,
        );
      } finally {
        // Also on a failure: a trace left running would go on recording into the next load.
        await cdp.send('Tracing.end');
      }
      const stream = await withTimeout(complete, 30_000, 'trace');
      const chunks: string[] = [];
      for (;;) {
        const { data, eof, base64Encoded } = await cdp.send('IO.read', { handle: stream, size: 1 << 20 });
        chunks.push(base64Encoded ? Buffer.from(data, 'base64').toString('utf8') : data);
        if (eof) break;
      }
      await cdp.send('IO.close', { handle: stream });
      const trace = JSON.parse(chunks.join('')) as TraceEvent[] | { traceEvents: TraceEvent[] };
      const result = longTasksOfLoad(Array.isArray(trace) ? trace : trace.traceEvents, origin, quiet.at);
      return result && { ...result, quietMs: quiet.at, capped: quiet.capped };
    } finally {
      await cdp.detach().catch(() => {});
    }
  } finally {
    await context.close();
  }
}

type Site = 'baseline' | 'current';

async function main(): Promise<void> {
  const started = Date.now();
  let baseline: BaselineBuild | undefined;
  const stops: (() => Promise<void>)[] = [];
  let browser: Browser | undefined;
  let failed = false;
  try {
    console.log(`Building the baseline ${BASELINE}…`);
    baseline = buildBaseline(BASELINE);
    const baselineSite = await startSiteProcess({ LOG_LEVEL: 'warn' }, baseline.root);
    stops.push(baselineSite.stop);
    const currentSite = await startSiteProcess({ LOG_LEVEL: 'warn' });
    stops.push(currentSite.stop);
    const origins: Record<Site, string> = { baseline: baselineSite.url, current: currentSite.url };
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS, timeout: 30_000 });
    const measure = async (site: Site, route: string): Promise<Load> => {
      for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
        const result = await withTimeout(load(browser!, origins[site], route), LOAD_TIMEOUT_MS, `${site} ${route}`);
        if (result) return result;
        if (attempt < ATTEMPTS)
          console.log(`  ${route.padEnd(10)} ${site.padEnd(8)} the trace lacks the page's navigation start; attempt ${attempt + 1} of ${ATTEMPTS}`);
      }
      throw new Error(`${site} ${route}: no navigation start in ${ATTEMPTS} traces`);
    };

    console.log(`Main thread while loading, CPU ${CPU_SLOWDOWN}× slower, ${RUNS} load${RUNS > 1 ? 's' : ''} of each; baseline ${baseline.ref}`);
    // A first load of each site warms its server (the first SSR) and the browser; not counted.
    for (const site of ['baseline', 'current'] as const) await measure(site, ROUTES[0]);
    const loads: Record<Site, Record<string, Load[]>> = { baseline: {}, current: {} };
    for (let round = 0; round < RUNS; round++) {
      for (const route of ROUTES) {
        const order: Site[] = round % 2 ? ['current', 'baseline'] : ['baseline', 'current'];
        for (const site of order) {
          const result = await measure(site, route);
          (loads[site][route] ??= []).push(result);
          console.log(
            `  ${route.padEnd(10)} ${site.padEnd(8)} round ${round + 1}: ${Math.round(result.longMs)} ms in ${result.count} long task${result.count === 1 ? '' : 's'}` +
              ` (longest ${Math.round(result.longestMs)} ms), quiet at ${(result.quietMs / 1000).toFixed(1)} s${result.capped ? ' (capped)' : ''}`,
          );
          // BENCH_MAINTHREAD_DETAIL=1: each long task with its largest parts, to see what to work on.
          if (process.env.BENCH_MAINTHREAD_DETAIL)
            for (const task of result.tasks) console.log(`      at ${task.atMs.toFixed(0)} ms: ${task.ms.toFixed(0)} ms (${task.parts})`);
        }
      }
    }

    console.log(`\nLong tasks (> ${LONG_TASK_MS} ms) on the renderer main thread, median of ${RUNS}: ms (count)`);
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
    const widths = header.map((_, i) => Math.max(...[header, ...rows].map((row) => row[i].length)));
    for (const row of [header, ...rows]) console.log(`  ${row.map((cell, i) => cell.padEnd(widths[i])).join('  ')}`.trimEnd());
    console.log(`\n${failed ? 'Target missed' : 'Targets met'} (${Math.round((Date.now() - started) / 1000)} s)`);
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
