// The Russian pages as the English ones are checked (accessibility.test.ts, layout.test.ts): axe
// finds no violation on any page or state at 375 and 1280 px, the document says it is Russian,
// nothing is wider than the window (Russian words run longer than English ones), and with
// SCREENSHOTS=1 each is photographed at both widths beside the English landing page, as
// test-artifacts/screenshots/<phone|desktop>-ru-<state>.png.
import type { Page } from 'playwright-core';
import { axeViolationsAtBothWidths } from '../support/axe';
import { overflowAtBothWidths } from '../support/overflow';
import { RUSSIAN_STATES } from '../support/russian-states';
import { hydrated, screenshot, startSiteOfItsOwn, VIEWPORTS, type Site } from '../support/site';

let site: Site;
beforeAll(async () => {
  site = await startSiteOfItsOwn({ CONFIRM_SIGNUPS: 'on', MAIL_TO_FILES: 'on' });
});
afterAll(() => site?.close());

/**
 * With SCREENSHOTS=1, the page at each width as <phone|desktop>-<name>.png, taken before the
 * checks, so a page that fails them can be looked at too.
 */
async function photograph(page: Page, name: string): Promise<void> {
  const opened = page.viewportSize();
  for (const { name: device, width, height } of VIEWPORTS) {
    await page.setViewportSize({ width, height });
    await screenshot(page, `${device}-${name}`);
  }
  if (opened) await page.setViewportSize(opened);
}

/** A state's name as a file name: '/ru/leave from a mailed link' → 'leave-from-a-mailed-link'. */
const fileName = (state: string) =>
  state
    .replace(/^\/ru\//, '')
    .replace(/[^a-z0-9]+/gi, '-')
    .replace(/^-|-$/g, '') || 'landing';

describe('the Russian site at 375 and 1280 px', () => {
  it.each(RUSSIAN_STATES)(
    '%s: Russian, no axe violation, nothing overflows',
    async (state, reach) => {
      const { page, context } = await site.open();
      const shown = await reach(page, site, true);
      await hydrated(shown);
      await photograph(shown, `ru-${fileName(state)}`);
      expect(await shown.evaluate(() => document.documentElement.lang)).toBe('ru');
      expect(await axeViolationsAtBothWidths(shown)).toEqual([]);
      expect(await overflowAtBothWidths(shown)).toEqual([]);
      await context.close();
    },
  );

  // accessibility.test.ts walks the English pages; its 404 is the one it leaves out.
  it('finds no axe violation on the English 404 either', async () => {
    const { page, context } = await site.open();
    await page.goto(site.url('/no-such-page'));
    await hydrated(page);
    expect(await axeViolationsAtBothWidths(page)).toEqual([]);
    await context.close();
  });

  it('photographs the English landing page beside the Russian one', async () => {
    const { page, context } = await site.open();
    await page.goto(site.url('/'));
    await hydrated(page);
    await photograph(page, 'en-landing');
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('en');
    expect(await overflowAtBothWidths(page)).toEqual([]);
    await context.close();
  });
});
