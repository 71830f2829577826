// The Russian pages as the English ones are checked (accessibility.test.ts, layout.test.ts): axe
// finds no violation on any page or state at 375 and 1280 px, the document says it is Russian,
// nothing is wider than the window (Russian words run longer than English ones), and with
// SCREENSHOTS=1 each is photographed at both widths beside the English landing page, as
// test-artifacts/screenshots/<phone|desktop>-ru-<state>.png.
import { axeViolationsAtBothWidths } from '../support/axe';
import { RUSSIAN_STATES } from '../support/russian-states';
import { atBothWidths, hydrated, startSiteOfItsOwn, type Site } from '../support/site';

let site: Site;
beforeAll(async () => {
  site = await startSiteOfItsOwn({ CONFIRM_SIGNUPS: 'on', MAIL_TO_FILES: 'on' });
});
afterAll(() => site?.close());

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
      expect(await shown.evaluate(() => document.documentElement.lang)).toBe('ru');
      expect(await axeViolationsAtBothWidths(shown)).toEqual([]);
      await atBothWidths(shown, `ru-${fileName(state)}`, [shown.locator('main')]);
      await context.close();
    },
  );

  it('photographs the English landing page beside the Russian one', async () => {
    const { page, context } = await site.open();
    await page.goto(site.url('/'));
    await hydrated(page);
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('en');
    await atBothWidths(page, 'en-landing', [page.locator('main')]);
    await context.close();
  });
});
