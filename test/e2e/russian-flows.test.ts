// The visitor's flows in Russian, in Chromium at 375 px with JavaScript and without: joining, a
// refused address, confirming and leaving by the links of real mail (which lead under /ru/),
// activating, and typing before hydration. Each Russian text comes from the catalog by the
// English the spec gives (test/support/russian.ts ru()), so no test spells Russian itself.
import type { Page, Route } from 'playwright-core';
import { REFUSED_DOMAIN } from '../../server/guard/domains';
import { CATALOGS } from '../../shared/messages';
import { ru } from '../support/russian';
import { post, visit } from '../support/russian-states';
import {
  hydrated,
  isHydrated,
  mailedTo,
  PHONE,
  startSiteOfItsOwn,
  type Site,
} from '../support/site';

let site: Site;
beforeAll(async () => {
  site = await startSiteOfItsOwn({ CONFIRM_SIGNUPS: 'on', MAIL_TO_FILES: 'on' });
});
afterAll(() => site?.close());

const heading = (page: Page) => page.getByRole('heading', { level: 1 }).innerText();
const lang = (page: Page) => page.evaluate(() => document.documentElement.lang);

/** Fills the waitlist form on /ru/ by its Russian labels and presses its Russian button. */
async function join(page: Page, javaScript: boolean, address: string) {
  await visit(page, site, javaScript, '/ru/');
  await page.getByLabel(ru('Email'), { exact: true }).fill(address);
  await page.getByLabel(ru('About me (or github profile)')).fill('org-mode');
  const button = page.getByRole('button', { name: ru('Join'), exact: true });
  if (javaScript) await button.click();
  else await Promise.all([page.waitForNavigation(), button.click()]);
}

describe.each([
  ['with JavaScript', true],
  ['without JavaScript', false],
])('in Russian %s at 375 px', (_label, javaScript) => {
  const tag = javaScript ? 'js' : 'nojs';
  const open = () => site.open({ ...PHONE, javaScriptEnabled: javaScript });

  it('joins, and the confirmation mail leads to /ru/confirm and /ru/leave', async () => {
    const address = `ru-join-${tag}@example.org`;
    const { page, context } = await open();
    await join(page, javaScript, address);
    await page.getByRole('heading', { name: ru('Congratulations') }).waitFor();
    expect(await lang(page)).toBe('ru');
    // Without JavaScript the form's answer is '/ru?joined', the same page (server/app.ts).
    expect(new URL(page.url()).pathname).toMatch(/^\/ru\/?$/);

    const mail = await mailedTo(site, address);
    expect(mail.confirmLink?.startsWith(site.url('/ru/confirm?token='))).toBe(true);
    expect(mail.leaveLink?.startsWith(site.url('/ru/leave?token='))).toBe(true);
    // The mail is in the language its person joined in.
    expect(mail.subject).toMatch(/[а-яё]/i);
    await context.close();
  });

  it("refuses a throwaway address with the field's Russian message, keeping what was typed", async () => {
    const { page, context } = await open();
    await join(page, javaScript, 'someone@mailinator.com');
    const field = page.getByLabel(ru('Email'), { exact: true });
    await page.getByText(ru(REFUSED_DOMAIN), { exact: true }).waitFor();
    expect(await field.inputValue()).toBe('someone@mailinator.com');
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    expect(await lang(page)).toBe('ru');
    await context.close();
  });

  it('confirms by the mailed link, staying on Russian pages', async () => {
    const address = `ru-confirm-${tag}@example.org`;
    const { page, context } = await open();
    await join(page, javaScript, address);
    const { confirmLink } = await mailedTo(site, address);
    expect((await page.goto(confirmLink!))!.status()).toBe(200);
    if (javaScript) await hydrated(page);
    expect(await heading(page)).toBe(ru('Confirm your address'));
    const res = await post(
      page,
      javaScript,
      page.locator('main').getByRole('button', { name: ru('Confirm my address') }),
    );
    expect(res!.status()).toBe(200);
    expect(new URL(page.url()).pathname).toBe('/ru/confirm');
    expect(await lang(page)).toBe('ru');
    expect(await heading(page)).toBe(ru('Your address is confirmed'));
    await context.close();
  });

  it('asks for a leave link on /ru/leave, then leaves by the Russian link mailed', async () => {
    const address = `ru-leave-${tag}@example.org`;
    const { page, context } = await open();
    await join(page, javaScript, address);
    await mailedTo(site, address);

    await visit(page, site, javaScript, '/ru/leave');
    expect(await heading(page)).toBe(ru('Leave the waitlist'));
    await page.getByLabel(ru('Email address')).fill(address);
    await post(page, javaScript, page.getByRole('button', { name: ru('Send me a link') }));
    expect(await lang(page)).toBe('ru');
    expect(await page.locator('main').innerText()).toContain(
      ru('If this address is on the waitlist, we have sent it a link. Open it to leave.'),
    );

    const mail = await mailedTo(site, address, 2);
    const link = /\S+\/leave\?token=[\w-]+/.exec(mail.text)?.[0];
    expect(link?.startsWith(site.url('/ru/leave?token='))).toBe(true);
    expect((await page.goto(link!))!.status()).toBe(200);
    if (javaScript) await hydrated(page);
    await post(
      page,
      javaScript,
      page.locator('main').getByRole('button', { name: ru('Leave the waitlist') }),
    );
    expect(new URL(page.url()).pathname).toBe('/ru/leave');
    expect(await lang(page)).toBe('ru');
    expect(await heading(page)).toBe(ru('You have left the waitlist'));
    await context.close();
  });

  it('activates: the web app opens in a new tab with the address and the key', async () => {
    const { page, context } = await open();
    await visit(page, site, javaScript, '/ru/activate?email=ru%40example.org');
    expect(await page.getByLabel(ru('Email'), { exact: true }).inputValue()).toBe('ru@example.org');
    await page.getByLabel(ru('Activation key'), { exact: true }).fill('KEY-RU');
    const [tab] = await Promise.all([
      context.waitForEvent('page'),
      page.getByRole('button', { name: CATALOGS.ru.activate.submit_, exact: true }).click(),
    ]);
    // Without JavaScript the form posts to /activate/open, whose 303 leads there.
    await tab.waitForURL((url) => url.pathname === '/auth/activate');
    const opened = new URL(tab.url());
    expect(`${opened.origin}${opened.pathname}`).toBe(`${site.backend.url}/auth/activate`);
    expect(Object.fromEntries(opened.searchParams)).toEqual({
      email: 'ru@example.org',
      token: 'KEY-RU',
      key: 'KEY-RU',
    });
    if (javaScript) {
      await page.getByRole('heading', { name: ru('Congratulations') }).waitFor();
      expect(await lang(page)).toBe('ru');
    }
    await context.close();
  });
});

describe('in Russian before hydration at 375 px', () => {
  it('keeps the text typed before hydration, then submits it', async () => {
    const { page, context, problems } = await site.open(PHONE);
    // The entry script held on the network until released, as a slow connection would.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let asked!: () => void;
    const requested = new Promise<void>((resolve) => (asked = resolve));
    await page.route(/\/assets\/entry-[\w-]+\.js$/, async (route: Route) => {
      asked();
      await released;
      await route.continue();
    });
    await page.goto(site.url('/ru/'), { waitUntil: 'domcontentloaded' });
    await requested;
    await page.getByLabel(ru('Email'), { exact: true }).fill('early-ru@example.org');
    await page.getByLabel(ru('About me (or github profile)')).fill('typed while the script loaded');
    expect(await isHydrated(page)).toBe(false);

    release();
    await hydrated(page);
    expect(await page.getByLabel(ru('Email'), { exact: true }).inputValue()).toBe(
      'early-ru@example.org',
    );
    await page.getByRole('button', { name: ru('Join'), exact: true }).click();
    await page.getByRole('heading', { name: ru('Congratulations') }).waitFor();
    const mail = await mailedTo(site, 'early-ru@example.org');
    expect(mail.confirmLink?.startsWith(site.url('/ru/confirm?token='))).toBe(true);
    expect(problems).toEqual([]);
    await context.close();
  });
});
