// The privacy notice in Chromium against the production build: linked beside
// both forms, reached by the link, hydrated without a warning, and whole without JavaScript.
import { hydrated, startSite, type Site } from '../support/site';

let site: Site;
beforeAll(async () => {
  site = await startSite({ PRIVACY_CONTACT: 'Privacy desk <privacy@orgnote.example>' });
});
afterAll(() => site?.close());

describe('the privacy notice', () => {
  it.each(['/', '/activate'])(
    'is linked under the form on %s, and the link leads to it in the page',
    async (path) => {
      const { page, context, problems } = await site.open();
      await page.goto(site.url(path));
      await hydrated(page);
      const form = page.locator('.hero-form');
      await form.getByRole('link', { name: 'Privacy', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: 'Privacy' }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/privacy');
      expect(await page.title()).toBe('Privacy · OrgNote');
      expect(
        await page.getByRole('link', { name: 'privacy@orgnote.example' }).getAttribute('href'),
      ).toBe('mailto:privacy@orgnote.example');
      expect(problems).toEqual([]);
      await context.close();
    },
  );

  it('hydrates when it is the first page, without a warning', async () => {
    const { page, context, problems } = await site.open();
    await page.goto(site.url('/privacy'));
    await hydrated(page);
    expect(await page.getByRole('link', { name: 'Leave the waitlist' }).getAttribute('href')).toBe(
      '/leave',
    );
    expect(problems).toEqual([]);
    await context.close();
  });

  it('is whole without JavaScript, and linked from both forms there too', async () => {
    const { page, context } = await site.open({ javaScriptEnabled: false });
    for (const path of ['/', '/activate']) {
      await page.goto(site.url(path));
      expect(
        await page
          .locator('.hero-form')
          .getByRole('link', { name: 'Privacy', exact: true })
          .getAttribute('href'),
      ).toBe('/privacy');
    }
    await page.goto(site.url('/privacy'));
    for (const heading of [
      'What is stored',
      'Why',
      'How long',
      'Who sees it',
      'How to leave',
      'Contact',
    ]) {
      expect(await page.getByRole('heading', { level: 2, name: heading }).isVisible()).toBe(true);
    }
    expect(await page.getByRole('link', { name: 'Leave the waitlist' }).getAttribute('href')).toBe(
      '/leave',
    );
    await context.close();
  });
});
