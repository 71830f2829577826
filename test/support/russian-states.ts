// Every page and state of the Russian site, reached as a visitor reaches it, with JavaScript or
// without: for the tests that look at each (no English left, axe, layout). Found by roles, field
// names and forms, never by text, so they reach the states whatever language the page is in. The
// site stores signups itself and mails with MAIL_TO_FILES=on (startSiteOfItsOwn), so the address
// pages open from the links of real mail.
import type { Locator, Page } from 'playwright-core';
import { LANGUAGE_FIELD } from '../../shared/native-form';
import { hydrated, mailedTo, type Site } from './site';

/** A state: reached from a fresh page; resolves to the page that shows it (a new tab, maybe). */
export type Reach = (page: Page, site: Site, javaScript: boolean) => Promise<Page>;

let signups = 0;

/** A new address, joined by the API as a Russian visitor (language=ru): its first mail's links. */
export async function russianSignup(site: Site) {
  const address = `ru-${process.pid}-${++signups}@example.org`;
  const form = new FormData();
  form.set('email', address);
  form.set('description', 'org-mode');
  form.set(LANGUAGE_FIELD, 'ru');
  const res = await fetch(site.url('/api/subscriptions'), { method: 'POST', body: form });
  if (res.status >= 300) throw new Error(`the signup of ${address} answered ${res.status}`);
  return { address, ...(await mailedTo(site, address)) };
}

/** A mailed link's token: /ru/confirm and /ru/leave take it whatever the mail's language. */
export const tokenOf = (link: string | undefined) =>
  new URL(link ?? 'about:blank').searchParams.get('token');

/** Opens a page; with JavaScript, once React has hydrated it. */
export async function visit(page: Page, site: Site, javaScript: boolean, path: string) {
  const res = await page.goto(site.url(path));
  if (javaScript) await hydrated(page);
  return res;
}

/** Presses a button that posts natively (the address pages do, with or without JavaScript). */
export async function post(page: Page, javaScript: boolean, button: Locator) {
  const [res] = await Promise.all([page.waitForNavigation(), button.click()]);
  if (javaScript) await hydrated(page);
  return res;
}

/** Sends a form: by its script with JavaScript, by a native POST without. */
async function send(page: Page, javaScript: boolean, button: Locator) {
  if (javaScript) await button.click();
  else await post(page, false, button);
}

const mainButton = (page: Page) => page.locator('main form button[type="submit"]').first();
const waitlistButton = (page: Page) => page.locator('form.waitlist-form button[type="submit"]');
const invalidEmail = (page: Page) =>
  page.locator('input[name="email"][aria-invalid="true"]').waitFor();

/** Fills the waitlist form on /ru/ and sends it. */
async function joinAs(page: Page, site: Site, javaScript: boolean, address: string) {
  await visit(page, site, javaScript, '/ru/');
  await page.locator('input[name="email"]').fill(address);
  await page.locator('textarea[name="description"]').fill('org-mode');
  await send(page, javaScript, waitlistButton(page));
}

/** The Russian site's pages and states, by name. */
export const RUSSIAN_STATES: [string, Reach][] = [
  ['/ru/ (the form)', async (page, site, js) => (await visit(page, site, js, '/ru/'), page)],
  [
    '/ru/ with the validation errors of an empty form',
    async (page, site, js) => {
      await visit(page, site, js, '/ru/');
      await send(page, js, waitlistButton(page));
      await invalidEmail(page);
      return page;
    },
  ],
  [
    '/ru/ joined',
    async (page, site, js) => {
      await joinAs(page, site, js, `joined-${js ? 'js' : 'nojs'}-${++signups}@example.org`);
      await page.locator('.result-body').waitFor();
      return page;
    },
  ],
  [
    '/ru/ with a throwaway address refused',
    async (page, site, js) => {
      await joinAs(page, site, js, 'someone@mailinator.com');
      await invalidEmail(page);
      return page;
    },
  ],
  ['/ru/activate', async (page, site, js) => (await visit(page, site, js, '/ru/activate'), page)],
  [
    '/ru/activate with the validation errors of an empty form',
    async (page, site, js) => {
      await visit(page, site, js, '/ru/activate');
      if (js) {
        await mainButton(page).click();
        await invalidEmail(page);
        return page;
      }
      // Without JavaScript the form posts to a new tab, which answers with what is missing.
      const [tab] = await Promise.all([
        page.context().waitForEvent('page'),
        mainButton(page).click(),
      ]);
      await tab.waitForLoadState();
      return tab;
    },
  ],
  ['/ru/privacy', async (page, site, js) => (await visit(page, site, js, '/ru/privacy'), page)],
  [
    '/ru/confirm from a mailed link',
    async (page, site, js) => {
      const { confirmLink } = await russianSignup(site);
      await visit(page, site, js, `/ru/confirm?token=${tokenOf(confirmLink)}`);
      return page;
    },
  ],
  [
    '/ru/confirm after its button',
    async (page, site, js) => {
      const { confirmLink } = await russianSignup(site);
      await visit(page, site, js, `/ru/confirm?token=${tokenOf(confirmLink)}`);
      await post(page, js, mainButton(page));
      return page;
    },
  ],
  [
    '/ru/confirm with a bad token',
    async (page, site, js) => (await visit(page, site, js, '/ru/confirm?token=bad'), page),
  ],
  ['/ru/leave', async (page, site, js) => (await visit(page, site, js, '/ru/leave'), page)],
  [
    '/ru/leave once a link is mailed',
    async (page, site, js) => {
      await visit(page, site, js, '/ru/leave');
      await page.locator('main input[name="email"]').fill('nobody@example.org');
      await post(page, js, mainButton(page));
      return page;
    },
  ],
  [
    "/ru/leave with the field's error",
    async (page, site, js) => {
      await visit(page, site, js, '/ru/leave');
      await page.locator('main input[name="email"]').fill('zoe@example');
      await post(page, js, mainButton(page));
      return page;
    },
  ],
  [
    '/ru/leave from a mailed link',
    async (page, site, js) => {
      const { leaveLink } = await russianSignup(site);
      await visit(page, site, js, `/ru/leave?token=${tokenOf(leaveLink)}`);
      return page;
    },
  ],
  [
    '/ru/leave?token=… done',
    async (page, site, js) => {
      const { leaveLink } = await russianSignup(site);
      await visit(page, site, js, `/ru/leave?token=${tokenOf(leaveLink)}`);
      await post(page, js, mainButton(page));
      return page;
    },
  ],
  [
    '/ru/privacy once a data link is asked for',
    async (page, site, js) => {
      await visit(page, site, js, '/ru/privacy');
      await page.locator('main input[name="email"]').fill('nobody@example.org');
      await post(page, js, mainButton(page));
      return page;
    },
  ],
  [
    "/ru/privacy with the data form's error",
    async (page, site, js) => {
      await visit(page, site, js, '/ru/privacy');
      await page.locator('main input[name="email"]').fill('zoe@example');
      await post(page, js, mainButton(page));
      return page;
    },
  ],
  [
    '/ru/privacy/data from a mailed link',
    async (page, site, js) => (
      await visit(page, site, js, `/ru/privacy/data#${'A'.repeat(32)}`),
      page
    ),
  ],
  [
    '/ru/privacy/data with a code that does not work',
    async (page, site, js) => {
      await visit(page, site, js, '/ru/privacy/data');
      await page.locator('main input[name="token"]').fill('bad');
      await post(page, js, mainButton(page));
      return page;
    },
  ],
  [
    '/ru/no-such-page (404)',
    async (page, site, js) => (await visit(page, site, js, '/ru/no-such-page'), page),
  ],
];
