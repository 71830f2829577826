// The bot guard as a person meets it, in Chromium in a phone's window, with PROOF_OF_WORK=on and
// the site storing signups itself: the form with JavaScript solves its challenge on the first
// focus and is stored, the plain form is stored once its issue time is old enough and comes back
// (values kept) when Join is pressed sooner, a throwaway domain is refused under the email field
// on both forms, and text typed before hydration still joins. axe finds nothing on any of these
// states, laid out at phone and desktop widths, with JavaScript or without.
import type { Page } from 'playwright-core';
import { REFUSED_DOMAIN } from '../../server/guard/domains';
import { ISSUED_FIELD } from '../../shared/native-form';
import { axeViolationsAtBothWidths } from '../support/axe';
import { withStore } from '../support/cli';
import { until } from '../support/wait';
import { hydrated, isHydrated, startSiteOfItsOwn, type Site } from '../support/site';

let site: Site;
beforeAll(async () => {
  site = await startSiteOfItsOwn({ PROOF_OF_WORK: 'on' });
});
afterAll(() => site?.close());

/**
 * axe's violations on a page shown without JavaScript, at both widths. axe needs scripts, and
 * injecting it into a page opened with them off hangs; so the page's markup as it stands, its
 * scripts taken out (none of them ran), is served at a path of the site to a page with scripts on,
 * where nothing of ours runs, and axe looks at that.
 */
async function plainPageViolations(page: Page) {
  const html = (await page.content()).replace(/<script\b[\s\S]*?<\/script>/g, '');
  const viewer = await site.open();
  try {
    const at = site.url('/__plain-snapshot');
    await viewer.page.route(at, (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: html }),
    );
    await viewer.page.goto(at);
    return await axeViolationsAtBothWidths(viewer.page);
  } finally {
    await viewer.context.close();
  }
}

/** The addresses the site has stored, read from its SQLite file. */
const storedAddresses = () =>
  withStore(site.dataDir, async (store) => (await store.signups.list()).map((row) => row.email));

/** The message tied to the email field (aria-describedby), or undefined. */
async function emailMessage(page: Page): Promise<string | undefined> {
  const email = page.getByLabel('Email', { exact: true });
  const id = await email.getAttribute('aria-describedby');
  return id ? (await page.locator(`[id="${id}"]`).innerText()).trim() : undefined;
}

/**
 * Waits until the plain form's issue time is good: the server signed into the field the instant
 * from which it takes the form (its first part), on this machine's clock.
 */
async function untilIssuedFieldIsGood(page: Page): Promise<void> {
  const field = await page.locator(`input[name="${ISSUED_FIELD}"]`).inputValue();
  const goodFrom = Number(field.split('.')[0]);
  await until('the form is old enough to be sent', () => Date.now() > goodFrom, 10_000);
}

/** The issued field of `url` as the site renders it at this moment. */
async function fieldRenderedNow(url: string): Promise<string> {
  const html = await (await fetch(url, { headers: { accept: 'text/html' } })).text();
  const field = new RegExp(`name="${ISSUED_FIELD}" value="([^"]+)"`).exec(html)?.[1];
  if (!field) throw new Error(`no ${ISSUED_FIELD} field in ${url}`);
  return field;
}

/** Presses Join on the plain form and waits for the server's answer. */
async function pressJoin(page: Page) {
  const [response] = await Promise.all([
    page.waitForNavigation(),
    page.getByRole('button', { name: 'Join' }).click(),
  ]);
  return response!;
}

describe('the bot guard', () => {
  it('solves the challenge on the first focus and stores a signup made with JavaScript', async () => {
    const address = 'js@example.org';
    const { page, context, problems } = await site.open();
    await page.goto(site.url('/'));
    await hydrated(page);
    expect(await axeViolationsAtBothWidths(page)).toEqual([]);
    const solverLoaded = () =>
      page.evaluate(() =>
        performance
          .getEntriesByType('resource')
          .some((entry) => /\/solver\.worker-[\w-]+\.js$/.test(entry.name)),
      );
    expect(await solverLoaded()).toBe(false);

    await page.getByLabel('Email', { exact: true }).focus();
    await page.getByLabel('Email', { exact: true }).fill(address);
    await page.getByLabel('About me (or github profile)').fill('I let scripts run');
    await page.waitForFunction(() => performance.getEntriesByName('pow-solve').length > 0);
    expect(await solverLoaded()).toBe(true);
    await page.getByRole('button', { name: 'Join' }).click();

    await page.getByRole('heading', { name: 'Congratulations' }).waitFor();
    expect(await axeViolationsAtBothWidths(page)).toEqual([]);
    expect(await storedAddresses()).toContain(address);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('stores a signup made without JavaScript once its issue time is old enough', async () => {
    const address = 'nojs@example.org';
    const { page, context } = await site.open({ javaScriptEnabled: false });
    await page.goto(site.url('/'));
    await page.getByLabel('Email', { exact: true }).fill(address);
    await page.getByLabel('About me (or github profile)').fill('I block scripts');
    await untilIssuedFieldIsGood(page);

    const response = await pressJoin(page);
    expect(new URL(response.url()).search).toBe('?joined');
    await page.getByRole('heading', { name: 'Congratulations' }).waitFor();
    expect(await plainPageViolations(page)).toEqual([]);
    expect(await storedAddresses()).toContain(address);
    await context.close();
  });

  it('gives the plain form back, values kept, when Join comes too soon, and Join then works', async () => {
    const address = 'soon@example.org';
    const { page, context } = await site.open({ javaScriptEnabled: false });
    const link = site.url(`/?email=${encodeURIComponent(address)}`);
    await page.goto(link);
    await page.getByLabel('About me (or github profile)').fill('I type fast');
    // Join pressed the moment the page arrived: the form goes out with the field of the page as
    // the link renders it at that moment (one per request), good MIN_FILL_MS later. Put in as the
    // request leaves, so a busy machine's slow typing or clicking cannot make the press late.
    const issued = page.locator(`input[name="${ISSUED_FIELD}"]`);
    let firstField = '';
    await page.route(
      /\/\?index$/,
      async (route) => {
        firstField = await fieldRenderedNow(link);
        const postData = route
          .request()
          .postData()!
          .replace(new RegExp(`(name="${ISSUED_FIELD}"\r\n\r\n)[^\r]+`), `$1${firstField}`);
        await route.continue({ postData });
      },
      { times: 1 },
    );

    const early = await pressJoin(page);
    expect(firstField).not.toBe('');
    expect(early.status()).toBe(200);
    await page.getByText('Almost there: press Join again.').waitFor();
    expect(await page.getByLabel('Email', { exact: true }).inputValue()).toBe(address);
    expect(await page.getByLabel('About me (or github profile)').inputValue()).toBe('I type fast');
    expect(await plainPageViolations(page)).toEqual([]);
    expect(await storedAddresses()).not.toContain(address);

    // The field that comes back is never good sooner than the one it replaces.
    const goodFrom = (field: string) => Number(field.split('.')[0]);
    expect(goodFrom(await issued.inputValue())).toBeGreaterThanOrEqual(goodFrom(firstField));
    await untilIssuedFieldIsGood(page);
    const again = await pressJoin(page);
    expect(new URL(again.url()).search).toBe('?joined');
    await page.getByRole('heading', { name: 'Congratulations' }).waitFor();
    expect(await storedAddresses()).toContain(address);
    await context.close();
  });

  it.each([true, false])(
    'refuses a throwaway domain under the email field (JavaScript %s)',
    async (javaScriptEnabled) => {
      const address = `bot-${javaScriptEnabled}@mailinator.com`;
      const { page, context } = await site.open({ javaScriptEnabled });
      await page.goto(site.url('/'));
      if (javaScriptEnabled) await hydrated(page);
      await page.getByLabel('Email', { exact: true }).fill(address);
      await page.getByLabel('About me (or github profile)').fill('throwaway');
      if (javaScriptEnabled) {
        await page.getByRole('button', { name: 'Join' }).click();
        await page.getByText(REFUSED_DOMAIN).waitFor();
      } else {
        expect((await pressJoin(page)).status()).toBe(400);
      }

      expect(await emailMessage(page)).toContain(REFUSED_DOMAIN);
      expect(await page.getByLabel('Email', { exact: true }).getAttribute('aria-invalid')).toBe(
        'true',
      );
      expect(await page.getByLabel('Email', { exact: true }).inputValue()).toBe(address);
      expect(await page.getByRole('heading', { name: 'Congratulations' }).count()).toBe(0);
      expect(
        javaScriptEnabled ? await axeViolationsAtBothWidths(page) : await plainPageViolations(page),
      ).toEqual([]);
      expect(await storedAddresses()).not.toContain(address);
      await context.close();
    },
  );

  it('keeps text typed before hydration and stores it with a solved challenge', async () => {
    const address = 'early@example.org';
    const { page, context, problems } = await site.open();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    await page.route(/\/assets\/entry-[\w-]+\.js$/, async (route) => {
      await released;
      await route.continue();
    });
    await page.goto(site.url('/'), { waitUntil: 'domcontentloaded' });
    await page.getByLabel('Email', { exact: true }).fill(address);
    await page.getByLabel('About me (or github profile)').fill('typed while the script loaded');
    expect(await isHydrated(page)).toBe(false);

    release();
    await hydrated(page);
    await page.getByRole('button', { name: 'Join' }).click();
    await page.getByRole('heading', { name: 'Congratulations' }).waitFor();
    expect(await page.evaluate(() => performance.getEntriesByName('pow-solve').length)).toBe(1);
    expect(await storedAddresses()).toContain(address);
    expect(problems).toEqual([]);
    await context.close();
  });
});
