// npm run lighthouse: Lighthouse 12.8 (mobile defaults: emulated phone, simulated slow 4G and
// 4× CPU slowdown) with Debian's Chromium against the production build, on 127.0.0.1. Each page
// (LIGHTHOUSE_PAGES, default `/,/activate,/ru/,/ru/activate`) is measured LIGHTHOUSE_RUNS times
// (default 5) in one Chromium; one Lighthouse run alone swings by several points of performance on
// this shared machine. Prints each run's performance and TBT on one line (the spread), then the
// median of each figure (the four category scores, LCP, TBT, CLS, FCP), and for the median run by
// TBT the long tasks Lighthouse saw and where the main thread's time went. The targets are checked
// on the medians: performance ≥ 0.98, TBT ≤ 100 ms, LCP ≤ 1200 ms, CLS 0, accessibility, best
// practices and SEO 1.00; exits 1 on a miss. The median run's report goes to
// test-artifacts/lighthouse-*.json. About 10 s a run here: 4 minutes with the defaults.
import fs from 'node:fs';
import path from 'node:path';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse, { type Result } from 'lighthouse';
import { CHROMIUM_FLAGS, CHROMIUM_PATH as CHROMIUM } from './chromium-flags';
import { median } from './bench/lib/stats';
import { startBuiltServer } from './lib/launch/server';
import { ROOT } from './lib/root';

const PAGES = (process.env.LIGHTHOUSE_PAGES ?? '/,/activate,/ru/,/ru/activate').split(',');
const RUNS = Math.max(1, Number(process.env.LIGHTHOUSE_RUNS ?? 5) || 5);
/** Category scores: at least this, on the median. */
const SCORE_TARGETS = { performance: 0.98, accessibility: 1, 'best-practices': 1, seo: 1 } as const;
/** Metrics (audit numericValue, ms or unitless for CLS): at most this, on the median. */
const METRIC_TARGETS = {
  'largest-contentful-paint': 1200,
  'total-blocking-time': 100,
  'cumulative-layout-shift': 0,
} as const;
const METRICS = [
  ['LCP', 'largest-contentful-paint'],
  ['TBT', 'total-blocking-time'],
  ['CLS', 'cumulative-layout-shift'],
  ['FCP', 'first-contentful-paint'],
] as const;
/** Lighthouse sometimes fails to record its trace (e.g. NO_NAVSTART) and asks to be run again. */
const ATTEMPTS = 3;

const score = (lhr: Result, id: string) => lhr.categories[id]?.score ?? 0;
const numeric = (lhr: Result, id: string) => lhr.audits[id]?.numericValue ?? Infinity;
const formatMetric = (id: string, value: number) =>
  id === 'cumulative-layout-shift' ? value.toFixed(3) : `${Math.round(value)} ms`;

/** A table audit's rows (long-tasks, mainthread-work-breakdown, bootup-time), or none. */
function rows(lhr: Result, id: string): Record<string, unknown>[] {
  const details = lhr.audits[id]?.details;
  return details && details.type === 'table' ? details.items : [];
}

const ms = (value: unknown) => `${Math.round(Number(value) || 0)}`;
/** A script's URL without the site's origin: `/assets/client-AB12.js`. */
const shortUrl = (url: unknown, origin: string) =>
  (typeof url === 'string' && url.replace(origin, '')) || '(none)';

/** The long tasks of one run and, in two lines, the main thread's time by kind and by script. */
function printMainThread(lhr: Result, origin: string): void {
  const tasks = rows(lhr, 'long-tasks').sort((a, b) => Number(b.duration) - Number(a.duration));
  console.log(`  long tasks (median run by TBT): ${tasks.length || 'none'}`);
  for (const task of tasks)
    console.log(
      `    ${ms(task.duration).padStart(5)} ms at ${ms(task.startTime).padStart(5)} ms  ${shortUrl(task.url, origin)}`,
    );
  const groups = rows(lhr, 'mainthread-work-breakdown')
    .slice(0, 4)
    .map(
      (item) =>
        `${typeof item.groupLabel === 'string' ? item.groupLabel : typeof item.group === 'string' ? item.group : '?'} ${ms(item.duration)}`,
    );
  if (groups.length) console.log(`  main thread (ms): ${groups.join(', ')}`);
  const scripts = rows(lhr, 'bootup-time')
    .slice(0, 3)
    .map(
      (item) => `${shortUrl(item.url, origin)} ${ms(item.total)} (script ${ms(item.scripting)})`,
    );
  if (scripts.length) console.log(`  bootup (ms): ${scripts.join(', ')}`);
}

async function main(): Promise<void> {
  // chrome-launcher reports a missing binary as an unhandled 'error' event that kills this
  // process, and with it our cleanup; so check first, before a server is started.
  if (!fs.existsSync(CHROMIUM))
    throw new Error(
      `no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)`,
    );
  const site = await startBuiltServer({ env: { LOG_LEVEL: 'warn' }, logFile: 'site.log' });
  let chrome: chromeLauncher.LaunchedChrome | undefined;
  let failed = false;
  try {
    chrome = await chromeLauncher.launch({
      chromePath: CHROMIUM,
      chromeFlags: ['--headless=new', ...CHROMIUM_FLAGS],
    });
    const port = chrome.port;
    const measure = async (page: string) =>
      (await lighthouse(`${site.url}${page}`, { port, output: 'json', logLevel: 'error' }))!.lhr;
    console.log(`Lighthouse ${RUNS} run${RUNS > 1 ? 's' : ''} per page; figures are medians`);
    for (const page of PAGES) {
      console.log(`\n${page}`);
      const runs: Result[] = [];
      for (let run = 1; run <= RUNS; run++) {
        let lhr = await measure(page);
        for (let attempt = 2; lhr.runtimeError && attempt <= ATTEMPTS; attempt++) {
          console.log(
            `  run ${run}: Lighthouse could not measure (${lhr.runtimeError.code}); attempt ${attempt} of ${ATTEMPTS}`,
          );
          lhr = await measure(page);
        }
        // Scores from a failed run are zeros that say nothing about the page; name the failure
        // instead.
        if (lhr.runtimeError) {
          console.log(`  run ${run}: not measured: ${lhr.runtimeError.message}`);
          failed = true;
          continue;
        }
        runs.push(lhr);
      }
      if (runs.length === 0) continue;
      console.log(
        `  runs: ${runs.map((lhr) => `perf ${score(lhr, 'performance').toFixed(2)} TBT ${Math.round(numeric(lhr, 'total-blocking-time'))}`).join(' | ')}`,
      );
      for (const [id, target] of Object.entries(SCORE_TARGETS)) {
        const value = median(runs.map((lhr) => score(lhr, id)));
        const ok = value >= target;
        failed ||= !ok;
        console.log(
          `  ${id.padEnd(15)} ${value.toFixed(2)}  (target ≥ ${target.toFixed(2)})${ok ? '' : '  ✗'}`,
        );
      }
      const metrics = METRICS.map(([label, id]) => {
        const value = median(runs.map((lhr) => numeric(lhr, id)));
        const target = (METRIC_TARGETS as Record<string, number | undefined>)[id];
        const ok = target === undefined || value <= target;
        failed ||= !ok;
        const goal =
          target === undefined
            ? ''
            : target === 0
              ? ' (target 0)'
              : ` (target ≤ ${formatMetric(id, target)})`;
        return `${label} ${formatMetric(id, value)}${goal}${ok ? '' : ' ✗'}`;
      });
      console.log(`  ${metrics.join('   ')}`);
      // The run in the middle by TBT stands for the page: its long tasks, failing audits and
      // report.
      const byTbt = [...runs].sort(
        (a, b) => numeric(a, 'total-blocking-time') - numeric(b, 'total-blocking-time'),
      );
      const middle = byTbt[Math.floor((byTbt.length - 1) / 2)];
      printMainThread(middle, site.url);
      for (const [id, audit] of Object.entries(middle.audits)) {
        if (audit.score !== null && audit.score < 1 && audit.scoreDisplayMode === 'binary')
          console.log(`  failing audit: ${id}: ${audit.title}`);
      }
      fs.mkdirSync(path.join(ROOT, 'test-artifacts'), { recursive: true });
      fs.writeFileSync(
        path.join(ROOT, `test-artifacts/lighthouse${page.replace(/\W+/g, '-')}.json`),
        JSON.stringify(middle),
      );
    }
  } finally {
    // Also when Chromium failed to start: a server left running would keep this script alive.
    chrome?.kill();
    await site.stop();
  }
  process.exitCode = failed ? 1 : 0;
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
