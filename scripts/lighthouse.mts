// npm run lighthouse: Lighthouse 12.8 (mobile defaults: emulated phone, simulated slow 4G and
// 4× CPU slowdown) with Debian's Chromium against the production build, on 127.0.0.1.
// Prints the four category scores, LCP, TBT and CLS; exits 1 when a target is missed.
import fs from 'node:fs';
import path from 'node:path';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { CHROMIUM_FLAGS } from './chromium-flags';
import { ROOT, startSiteProcess } from './site-process';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const TARGETS = { performance: 1, accessibility: 1, 'best-practices': 1, seo: 1 } as const;
/** Largest Contentful Paint at most this (ms), and no layout shift at all. */
const LCP_TARGET_MS = 1200;
const PAGES = (process.env.LIGHTHOUSE_PAGES ?? '/,/activate').split(',');
/** Lighthouse sometimes fails to record its trace (e.g. NO_NAVSTART) and asks to be run again. */
const ATTEMPTS = 3;

async function main(): Promise<void> {
  // chrome-launcher reports a missing binary as an unhandled 'error' event that kills this
  // process, and with it our cleanup; so check first, before a server is started.
  if (!fs.existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)`);
  const site = await startSiteProcess({ LOG_LEVEL: 'warn' });
  let chrome: chromeLauncher.LaunchedChrome | undefined;
  let failed = false;
  try {
    chrome = await chromeLauncher.launch({
      chromePath: CHROMIUM,
      chromeFlags: ['--headless=new', ...CHROMIUM_FLAGS],
    });
    const port = chrome.port;
    const measure = async (page: string) => (await lighthouse(`${site.url}${page}`, { port, output: 'json', logLevel: 'error' }))!.lhr;
    for (const page of PAGES) {
      let lhr = await measure(page);
      for (let attempt = 2; lhr.runtimeError && attempt <= ATTEMPTS; attempt++) {
        console.log(`\n${page}: Lighthouse could not measure (${lhr.runtimeError.code}); attempt ${attempt} of ${ATTEMPTS}`);
        lhr = await measure(page);
      }
      // Scores from a failed run are zeros that say nothing about the page; name the failure instead.
      if (lhr.runtimeError) {
        console.log(`\n${page}\n  not measured: ${lhr.runtimeError.message}`);
        failed = true;
        continue;
      }
      const metric = (id: string) => lhr.audits[id]?.displayValue ?? 'n/a';
      console.log(`\n${page}`);
      for (const [id, target] of Object.entries(TARGETS)) {
        const score = lhr.categories[id]?.score ?? 0;
        const ok = score >= target;
        failed ||= !ok;
        console.log(`  ${id.padEnd(15)} ${score.toFixed(2)}  (target ≥ ${target.toFixed(2)})${ok ? '' : '  ✗'}`);
      }
      console.log(
        `  LCP ${metric('largest-contentful-paint')}   TBT ${metric('total-blocking-time')}   CLS ${metric('cumulative-layout-shift')}   FCP ${metric('first-contentful-paint')}`,
      );
      const lcpMs = lhr.audits['largest-contentful-paint']?.numericValue ?? Infinity;
      const cls = lhr.audits['cumulative-layout-shift']?.numericValue ?? Infinity;
      if (lcpMs > LCP_TARGET_MS || cls > 0) {
        failed = true;
        console.log(`  ✗ LCP ${Math.round(lcpMs)} ms (target ≤ ${LCP_TARGET_MS}), CLS ${cls} (target 0)`);
      }
      for (const [id, audit] of Object.entries(lhr.audits)) {
        if (audit.score !== null && audit.score < 1 && audit.scoreDisplayMode === 'binary') console.log(`  failing audit: ${id}: ${audit.title}`);
      }
      fs.mkdirSync(path.join(ROOT, 'test-artifacts'), { recursive: true });
      fs.writeFileSync(path.join(ROOT, `test-artifacts/lighthouse${page.replace(/\W+/g, '-')}.json`), JSON.stringify(lhr));
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
