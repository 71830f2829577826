// axe-core in Chromium on every screen of docs/product.md (§2, §4) and the address pages,
// at phone and desktop widths. The site stores signups itself and confirms them, so the address
// pages' links come out of its real mail.
import type { Page } from 'playwright-core';
import { axeViolationsAtBothWidths } from '../support/axe';
import { hydrated, mailedTo, startSiteOfItsOwn, VIEWPORTS, type Site } from '../support/site';

let site: Site;
beforeAll(async () => {
  site = await startSiteOfItsOwn({ CONFIRM_SIGNUPS: 'on', MAIL_TO_FILES: 'on' });
});
afterAll(() => site?.close());

let signups = 0;

/** A new address on the waitlist: the links of the confirmation mail it gets. */
async function newSignup() {
  const address = `axe-${++signups}@example.org`;
  const form = new FormData();
  form.set('email', address);
  form.set('description', 'axe');
  await fetch(site.url('/api/subscriptions'), { method: 'POST', body: form });
  return mailedTo(site, address);
}

/** Presses a button of the page's native form and waits for the server's answer. */
async function press(page: Page, name: string): Promise<void> {
  await Promise.all([
    page.waitForNavigation(),
    page.locator('main').getByRole('button', { name }).click(),
  ]);
}

/** The address pages: links from real mail, and the answers to their native forms. */
const addressScreens: [string, (page: Page) => Promise<void>][] = [
  [
    '/confirm from a mailed link',
    async (page) => void (await page.goto((await newSignup()).confirmLink!)),
  ],
  [
    '/confirm after the button',
    async (page) => {
      await page.goto((await newSignup()).confirmLink!);
      await press(page, 'Confirm my address');
    },
  ],
  ['/confirm?token=bad', async (page) => void (await page.goto(site.url('/confirm?token=bad')))],
  [
    '/leave from a mailed link',
    async (page) => void (await page.goto((await newSignup()).leaveLink!)),
  ],
  ['/leave', async (page) => void (await page.goto(site.url('/leave')))],
  [
    "/leave with the field's error",
    async (page) => {
      await page.goto(site.url('/leave'));
      await page.getByLabel('Email address').fill('zoe@example');
      await press(page, 'Send me a link');
    },
  ],
  [
    "/leave's answer",
    async (page) => {
      await page.goto(site.url('/leave'));
      await page.getByLabel('Email address').fill('nobody@example.org');
      await press(page, 'Send me a link');
    },
  ],
  [
    "/privacy's data request with the field's error",
    async (page) => {
      await page.goto(site.url('/privacy'));
      await page.getByLabel('Email address').fill('zoe@example');
      await press(page, 'Send me what you hold about me');
    },
  ],
  [
    "/privacy's data request answered",
    async (page) => {
      await page.goto(site.url('/privacy'));
      await page.getByLabel('Email address').fill('nobody@example.org');
      await press(page, 'Send me what you hold about me');
    },
  ],
  [
    '/privacy/data (the data link, asking for its code)',
    async (page) => void (await page.goto(site.url('/privacy/data'))),
  ],
  [
    '/privacy/data with a code that does not work',
    async (page) => {
      await page.goto(site.url('/privacy/data'));
      await page.getByLabel('Code from the mail').fill('bad');
      await press(page, 'Download my data');
    },
  ],
];

const screens: [string, (page: Page) => Promise<void>][] = [
  ['/', async (page) => void (await page.goto(site.url('/')))],
  ['/activate', async (page) => void (await page.goto(site.url('/activate')))],
  ['/privacy', async (page) => void (await page.goto(site.url('/privacy')))],
  [
    'the joined view',
    async (page) => {
      await page.goto(site.url('/'));
      await page.evaluate(() => localStorage.setItem('subscribed', 'true'));
      await page.reload();
      await page.getByRole('heading', { name: 'Congratulations' }).waitFor();
    },
  ],
  [
    'the error view',
    async (page) => {
      await page.addInitScript(() => {
        window.open = () => {
          throw new Error('Tabs are blocked');
        };
      });
      await page.goto(site.url('/activate?email=a%40b.co'));
      await hydrated(page);
      await page.getByLabel('Activation key', { exact: true }).fill('KEY');
      await page.getByRole('button', { name: 'Activate' }).click();
      await page.getByRole('heading', { name: 'Error' }).waitFor();
    },
  ],
  [
    'the form with validation errors',
    async (page) => {
      await page.goto(site.url('/'));
      await hydrated(page);
      await page.getByRole('button', { name: 'Join' }).click();
      await page.getByText('Email address is required').waitFor();
    },
  ],
  ...addressScreens,
];

// Each screen is reached once and laid out at both widths in turn (the window set to each):
// one page, one axe, where a page per width cost a second navigation and axe's injection again.
describe('axe at 375 and 1280 px', () => {
  it.each(screens)('reports no violations on %s', async (_name, reach) => {
    const { page, context } = await site.open();
    await reach(page);
    await hydrated(page);
    expect(await axeViolationsAtBothWidths(page)).toEqual([]);
    await context.close();
  });
});

describe.each(VIEWPORTS)('focus at $width px', ({ width, height }) => {
  it('shows a visible focus ring on every control reached by Tab', async () => {
    const { page, context } = await site.open({ width, height });
    await page.goto(site.url('/'));
    await hydrated(page);
    // Start from the top of the page, then walk every control with Tab.
    await page.locator('.skip-link').focus();
    const missing: string[] = [];
    const visited: string[] = [];
    for (let i = 0; i < 30; i++) {
      if (i > 0) await page.keyboard.press('Tab');
      const focus = await page.evaluate(() => {
        const el = document.activeElement as HTMLElement;
        if (el === document.body) return null;
        const style = getComputedStyle(el);
        return {
          name: el.getAttribute('aria-label') ?? el.textContent?.trim().slice(0, 20) ?? el.tagName,
          width: style.outlineWidth,
          style: style.outlineStyle,
        };
      });
      if (!focus) break; // past the last control
      visited.push(focus.name);
      if (focus.style === 'none' || focus.width === '0px') missing.push(focus.name);
    }
    expect(visited.length).toBeGreaterThanOrEqual(12);
    expect(visited.slice(0, 2)).toEqual(['Skip to content', 'Menu']);
    expect(missing).toEqual([]);
    await context.close();
  });
});
