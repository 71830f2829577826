// No string left behind: every page and state of the Russian site, in Chromium at 375 px with
// JavaScript and without, shows no English outside the names a Russian page keeps in Latin letters
// (test/support/russian.ts NAMES). A failure lists each English text with where it was seen.
import { visibleEnglish } from '../support/russian';
import { RUSSIAN_STATES } from '../support/russian-states';
import { PHONE, startSiteOfItsOwn, type Site } from '../support/site';

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
