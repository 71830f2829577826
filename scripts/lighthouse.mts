// npm run lighthouse: Lighthouse 12.8 (mobile defaults: emulated phone, simulated slow 4G and
// 4× CPU slowdown) with Debian's Chromium against the production build, on 127.0.0.1.
// Prints the four category scores, LCP, TBT and CLS; exits 1 when a target is missed.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { ROOT, startSiteProcess } from './site-process';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const TARGETS = { performance: 0.98, accessibility: 1, 'best-practices': 1, seo: 1 } as const;
const PAGES = (process.env.LIGHTHOUSE_PAGES ?? '/,/activate').split(',');

async function startSite(): Promise<{ url: string; stop: () => void }> {
  const build = spawn(process.execPath, ['--import', 'tsx', 'scripts/build.ts', '--if-stale'], { cwd: ROOT, stdio: 'inherit' });
  const code = await new Promise((resolve) => build.once('exit', resolve));
  // A failed build would leave an old dist behind, and the scores would describe that.
  if (code !== 0) throw new Error(`the build failed (exit ${code})`);
  const site = await startSiteProcess({ LOG_LEVEL: 'warn' });
  return { url: site.url, stop: () => void site.stop() };
}

async function main(): Promise<void> {
  const site = await startSite();
  const chrome = await chromeLauncher.launch({
    chromePath: CHROMIUM,
    chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
  let failed = false;
  try {
    for (const page of PAGES) {
      const result = await lighthouse(`${site.url}${page}`, { port: chrome.port, output: 'json', logLevel: 'error' });
      const lhr = result!.lhr;
      const scores = Object.fromEntries(Object.entries(TARGETS).map(([id]) => [id, lhr.categories[id]?.score ?? 0]));
      const metric = (id: string) => lhr.audits[id]?.displayValue ?? 'n/a';
      console.log(`\n${page}`);
      for (const [id, target] of Object.entries(TARGETS)) {
        const score = scores[id] as number;
        const ok = score >= target;
        failed ||= !ok;
        console.log(`  ${id.padEnd(15)} ${score.toFixed(2)}  (target ≥ ${target.toFixed(2)})${ok ? '' : '  ✗'}`);
      }
      console.log(`  LCP ${metric('largest-contentful-paint')}   TBT ${metric('total-blocking-time')}   CLS ${metric('cumulative-layout-shift')}   FCP ${metric('first-contentful-paint')}`);
      for (const [id, audit] of Object.entries(lhr.audits)) {
        if (audit.score !== null && audit.score < 1 && audit.scoreDisplayMode === 'binary') console.log(`  failing audit: ${id}: ${audit.title}`);
      }
      fs.mkdirSync(path.join(ROOT, 'test-artifacts'), { recursive: true });
      fs.writeFileSync(path.join(ROOT, `test-artifacts/lighthouse${page.replace(/\W+/g, '-')}.json`), JSON.stringify(lhr));
    }
  } finally {
    await chrome.kill();
    site.stop();
  }
  process.exitCode = failed ? 1 : 0;
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
