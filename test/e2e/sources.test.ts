// Where a signup came from, in Chromium at 375 px with JavaScript and without, against the built
// server storing signups itself: from a link with utm_source, utm_medium and utm_campaign, from a
// landing on another page (with another site's Referer) and through the site's own links to the
// form, and on the Russian pages, each through to the signup's source read back from the store.
// With JavaScript the page's script keeps the source across client-side navigation, and knows the
// Referer of a landing on the page kept for everyone; without it, that landing's Referer is lost.
import type { Page } from 'playwright-core';
import { openSqliteStore } from '../../server/store';
import type { SignupRow } from '../../server/store/signups';
import { ru } from '../support/russian';
import { hydrated, PHONE, startSiteOfItsOwn, type Site } from '../support/site';

let site: Site;
beforeAll(async () => {
  site = await startSiteOfItsOwn();
});
afterAll(() => site?.close());

/** The page of another site that links here: only its host may be kept. */
// http, as the site here is: a browser sends no Referer from an https page to an http one.
const ELSEWHERE = 'http://news.example/thread/42?from=front-page';

/** The signup of `email` as the store holds it: its language and the four source fields. */
async function stored(email: string) {
  const store = openSqliteStore({ dataDir: site.dataDir });
  try {
    const row = (await store.signups.list()).find((each: SignupRow) => each.email === email);
    if (!row) return undefined;
    const { language, utm_source, utm_medium, utm_campaign, referrer } = row;
    return { language, utm_source, utm_medium, utm_campaign, referrer };
  } finally {
    await store.close();
  }
}

const NONE = { utm_source: null, utm_medium: null, utm_campaign: null, referrer: null };

describe.each([
  ['with JavaScript', true],
  ['without JavaScript', false],
])('where a signup came from, %s', (_label, javaScript) => {
  const tag = javaScript ? 'js' : 'nojs';
  const open = () => site.open({ ...PHONE, javaScriptEnabled: javaScript });

  /** Opens `path` as a landing, from `referer` when given; waits for hydration with the script. */
  async function land(page: Page, path: string, referer?: string) {
    await page.goto(site.url(path), referer ? { referer } : {});
    if (javaScript) await hydrated(page);
  }

  /** Follows one of the site's own links: a page load without the script, a route change with. */
  async function follow(page: Page, selector: string) {
    const link = page.locator(selector).first();
    if (javaScript) {
      const path = new URL((await link.getAttribute('href'))!, site.url()).pathname;
      await link.click();
      await page.waitForURL((url) => url.pathname === path);
    } else {
      await Promise.all([page.waitForNavigation(), link.click()]);
    }
  }

  /** Fills the waitlist form in the page's language and joins; waits for the joined view. */
  async function join(page: Page, email: string, words: (english: string) => string = (w) => w) {
    await page.getByLabel(words('Email'), { exact: true }).fill(email);
    await page.getByLabel(words('About me (or github profile)')).fill('org-mode');
    const button = page.getByRole('button', { name: words('Join'), exact: true });
    if (javaScript) await button.click();
    else await Promise.all([page.waitForNavigation(), button.click()]);
    await page.getByRole('heading', { name: words('Congratulations') }).waitFor();
  }

  it('records the utm_* of the link the visitor came by', async () => {
    const { page, context, problems } = await open();
    const email = `link-${tag}@example.org`;
    await land(page, '/?utm_source=newsletter&utm_medium=email&utm_campaign=spring+launch');
    await join(page, email);
    expect(await stored(email)).toEqual({
      ...NONE,
      language: 'en',
      utm_source: 'newsletter',
      utm_medium: 'email',
      utm_campaign: 'spring launch',
    });
    expect(problems).toEqual([]);
    await context.close();
  });

  it("carries a landing on another page, and its Referer's host, through the site's links to the form", async () => {
    const { page, context, problems } = await open();
    const email = `privacy-${tag}@example.org`;
    await land(page, '/privacy?utm_source=hn&utm_campaign=show', ELSEWHERE);
    await page.getByRole('button', { name: 'Menu' }).click();
    await follow(page, '.menu-dropdown a[href^="/activate"]');
    await follow(page, 'header a.brand');
    await join(page, email);
    expect(await stored(email)).toEqual({
      ...NONE,
      language: 'en',
      utm_source: 'hn',
      utm_campaign: 'show',
      referrer: 'news.example',
    });
    expect(problems).toEqual([]);
    await context.close();
  });

  it('records the utm_* of a link to the Russian form, with the Russian language', async () => {
    const { page, context, problems } = await open();
    const email = `ru-link-${tag}@example.org`;
    await land(page, '/ru/?utm_source=vk&utm_medium=post', 'http://vk.example/wall-1_2');
    await join(page, email, ru);
    expect(await stored(email)).toEqual({
      ...NONE,
      language: 'ru',
      utm_source: 'vk',
      utm_medium: 'post',
      referrer: 'vk.example',
    });
    expect(problems).toEqual([]);
    await context.close();
  });

  it('carries a landing on a Russian page to the Russian form', async () => {
    const { page, context, problems } = await open();
    const email = `ru-activate-${tag}@example.org`;
    await land(page, '/ru/activate?utm_campaign=telegram');
    await follow(page, 'header a.brand');
    expect(new URL(page.url()).pathname).toMatch(/^\/ru\/?$/);
    await join(page, email, ru);
    expect(await stored(email)).toEqual({ ...NONE, language: 'ru', utm_campaign: 'telegram' });
    expect(problems).toEqual([]);
    await context.close();
  });

  it(
    javaScript
      ? "records another site's host from a landing on the page kept for everyone"
      : 'cannot know the Referer of a landing on the page kept for everyone',
    async () => {
      const { page, context, problems } = await open();
      const email = `shared-${tag}@example.org`;
      await land(page, '/', ELSEWHERE);
      await join(page, email);
      expect(await stored(email)).toEqual({
        ...NONE,
        language: 'en',
        referrer: javaScript ? 'news.example' : null,
      });
      expect(problems).toEqual([]);
      await context.close();
    },
  );

  it('keeps the first source of a repeat, and takes none from our own pages', async () => {
    const email = `again-${tag}@example.org`;
    const first = await open();
    await land(first.page, '/?utm_source=first');
    await join(first.page, email);
    await first.context.close();
    // The same address again, another day (a fresh browser), from another campaign.
    const again = await open();
    await land(again.page, '/privacy?utm_source=second', 'http://elsewhere.example/');
    await follow(again.page, 'header a.brand');
    await join(again.page, email);
    expect(await stored(email)).toEqual({ ...NONE, language: 'en', utm_source: 'first' });
    await again.context.close();
    // A page for one request whose Referer is one of ours: nothing to carry.
    const own = await open();
    const direct = `own-${tag}@example.org`;
    await land(own.page, '/activate?email=x', site.url('/privacy'));
    await follow(own.page, 'header a.brand');
    await join(own.page, direct);
    expect(await stored(direct)).toEqual({ ...NONE, language: 'en' });
    expect([...first.problems, ...again.problems, ...own.problems]).toEqual([]);
    await own.context.close();
  });
});
