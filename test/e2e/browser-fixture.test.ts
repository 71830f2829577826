// The browser suite's fixture (test/support/site.ts, browser.ts): a file's site shows its pages in
// the run's one Chromium, which the project's global setup started (e2e-setup.ts), instead of
// starting a browser of its own; each test's page lives in a context of its own; and screenshots
// are taken when SCREENSHOTS=1 asks for them, at both widths, and never otherwise.
import fs from 'node:fs';
import path from 'node:path';
import { atBothWidths, startSite, type Site } from '../support/site';

const SCREENSHOT_DIR = path.resolve(__dirname, '../../test-artifacts/screenshots');

/**
 * The Chromium browser processes (not its renderers and helpers, which say --type=) under this
 * process: the run's own when Jest runs this file in its main process, else none.
 */
function chromiumBrowsersUnder(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of fs.readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    // After the command name in parentheses: the state, then the parent's PID.
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    children.set(parent, [...(children.get(parent) ?? []), Number(name)]);
  }
  const browsers: number[] = [];
  const visit = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      let command = '';
      try {
        command = fs.readFileSync(`/proc/${child}/cmdline`, 'utf8');
      } catch {
        continue;
      }
      if (/chromium/.test(command) && !command.includes('--type=')) browsers.push(child);
      visit(child);
    }
  };
  visit(root);
  return browsers.sort();
}

let site: Site;
let browsersBefore: number[];
beforeAll(async () => {
  browsersBefore = chromiumBrowsersUnder(process.pid);
  site = await startSite();
});
afterAll(() => site?.close());

describe('the browser fixture', () => {
  it("shows the site's pages in the run's Chromium, starting none of its own", async () => {
    const { page, context, problems } = await site.open();
    await page.goto(site.url('/privacy'));
    expect(await page.title()).toBe('Privacy · OrgNote');
    expect(chromiumBrowsersUnder(process.pid)).toEqual(browsersBefore);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('gives each page a context of its own: what one stored, the next does not see', async () => {
    const first = await site.open();
    await first.page.goto(site.url('/privacy'));
    await first.page.evaluate(() => localStorage.setItem('subscribed', 'true'));
    const second = await site.open();
    await second.page.goto(site.url('/privacy'));
    expect(await second.page.evaluate(() => localStorage.getItem('subscribed'))).toBeNull();
    expect(await first.page.evaluate(() => localStorage.getItem('subscribed'))).toBe('true');
    await second.context.close();
    await first.context.close();
  });

  it('photographs a state at both widths with SCREENSHOTS=1, and takes nothing without it', async () => {
    const { page, context } = await site.open();
    await page.goto(site.url('/privacy'));
    const startedAt = Date.now();
    await atBothWidths(page, 'privacy', [page.getByRole('heading', { level: 1 })]);
    const taken = ['phone-privacy.png', 'desktop-privacy.png'].filter((name) => {
      const file = path.join(SCREENSHOT_DIR, name);
      return fs.existsSync(file) && fs.statSync(file).mtimeMs >= startedAt - 1_000;
    });
    if (process.env.SCREENSHOTS === '1') {
      expect(taken).toEqual(['phone-privacy.png', 'desktop-privacy.png']);
      const png = fs.readFileSync(path.join(SCREENSHOT_DIR, taken[1]));
      expect(png.subarray(1, 4).toString()).toBe('PNG');
      // 1280 px wide: the IHDR chunk's width, big-endian at byte 16.
      expect(png.readUInt32BE(16)).toBe(1280);
    } else expect(taken).toEqual([]);
    // Back to the width the page was opened at.
    expect(page.viewportSize()).toEqual({ width: 375, height: 740 });
    await context.close();
  });
});
