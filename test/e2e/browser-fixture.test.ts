// The browser suite's fixture (test/support/site.ts, browser.ts): a file's site shows its pages in
// the run's one Chromium, which the project's global setup started (e2e-setup.ts), instead of
// starting a browser of its own; and each test's page lives in a context of its own.
import fs from 'node:fs';
import { startSite, type Site } from '../support/site';

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
}, 30_000);
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
});
