// No string left behind: every page and state of the Russian site, in Chromium at 375 px with
// JavaScript and without, shows no English outside the names a Russian page keeps in Latin letters
// (test/support/russian.ts NAMES). A failure lists each English text with where it was seen.
import { visibleEnglish } from '../support/russian';
import { RUSSIAN_STATES } from '../support/russian-states';
import { PHONE, startSiteOfItsOwn, type Site } from '../support/site';
import { clearOfRateWindowEnd } from '../support/rate-window';

let site: Site;
beforeAll(async () => {
  site = await startSiteOfItsOwn({ CONFIRM_SIGNUPS: 'on', MAIL_TO_FILES: 'on' });
});
afterAll(() => site?.close());

describe.each([
  ['with JavaScript', true],
  ['without JavaScript', false],
])('the Russian site %s at 375 px', (_label, javaScript) => {
  it.each(RUSSIAN_STATES)('shows no English on %s', async (_name, reach) => {
    const { page, context } = await site.open({ ...PHONE, javaScriptEnabled: javaScript });
    const shown = await reach(page, site, javaScript);
    expect(await shown.evaluate(() => document.documentElement.lang)).toBe('ru');
    expect(await visibleEnglish(shown)).toEqual([]);
    await context.close();
  });
});

describe('the Russian site over its signup rate limit', () => {
  let limited: Site;
  beforeAll(async () => {
    limited = await startSiteOfItsOwn({ SIGNUP_RATE_LIMIT: '1' });
  });
  afterAll(() => limited?.close());

  it('shows no English on the refusal of a second form in a minute, without JavaScript', async () => {
    // Both forms in one minute's window of the limit.
    await clearOfRateWindowEnd(20_000);
    const { page, context } = await limited.open({ ...PHONE, javaScriptEnabled: false });
    const statuses: number[] = [];
    for (const address of ['first@example.org', 'second@example.org']) {
      await page.goto(limited.url('/ru/'));
      await page.locator('input[name="email"]').fill(address);
      await page.locator('textarea[name="description"]').fill('org-mode');
      const [res] = await Promise.all([
        page.waitForNavigation(),
        page.locator('form.waitlist-form button[type="submit"]').click(),
      ]);
      statuses.push(res!.status());
    }
    expect(statuses).toEqual([200, 429]);
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('ru');
    expect(await visibleEnglish(page)).toEqual([]);
    await context.close();
  });
});
