// What a visitor does before React has hydrated the page, in Chromium against the
// production server and a real multer backend. The page's script is held back on the network until
// the test lets it through, as a slow connection would: text typed before hydration is kept and
// submitted, a form sent before hydration posts natively, the joined view of a returning visitor
// shows from the first paint, a menu opened before hydration stays open through it, hydration
// starts at the first key or touch in a form when the browser is never idle, and the starfall
// stands still where it would cost the main thread.
import type { Page, Route } from 'playwright-core';
import { until } from '../support/wait';
import {
  hydrated,
  isHydrated,
  menuExpanded,
  PHONE,
  screenshot,
  startSite,
  VIEWPORTS,
  type Site,
} from '../support/site';

let site: Site;
beforeAll(async () => {
  site = await startSite();
});
afterAll(() => site?.close());
beforeEach(() => {
  site.backend.received.length = 0;
  site.backend.respondWith((req, res) => res.status(201).json({ email: 'ok' }));
});

/**
 * Loads `path` with the entry script held on the network, and returns once the page has asked for
 * it (the document's inline script adds it once the browser is idle or a form is touched): the
 * page is parsed and shown, and stays without React until release().
 */
async function loadHoldingScript(page: Page, path: string) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let asked!: () => void;
  const requested = new Promise<void>((resolve) => (asked = resolve));
  await page.route(/\/assets\/entry-[\w-]+\.js$/, async (route: Route) => {
    asked();
    await released;
    await route.continue();
  });
  await page.goto(site.url(path), { waitUntil: 'domcontentloaded' });
  await requested;
  return { release };
}

describe('before hydration at 375 px', () => {
  const phone = PHONE;

  it('keeps the waitlist text typed before hydration, then validates and submits it', async () => {
    const { page, context, problems } = await site.open(phone);
    const script = await loadHoldingScript(page, '/');
    await page.getByLabel('Email', { exact: true }).fill('early@example.org');
    await page.getByLabel('About me (or github profile)').fill('typed while the script loaded');
    expect(await isHydrated(page)).toBe(false);

    script.release();
    await hydrated(page);
    expect(await page.getByLabel('Email', { exact: true }).inputValue()).toBe('early@example.org');
    expect(await page.getByLabel('About me (or github profile)').inputValue()).toBe(
      'typed while the script loaded',
    );
    await page.getByRole('button', { name: 'Join' }).click();

    await page.getByRole('heading', { name: 'Congratulations' }).waitFor();
    expect(await page.getByText('Email address is required').count()).toBe(0);
    await until('the backend has the signup', () => site.backend.received.length > 0, 10_000);
    expect(site.backend.received.map((r) => r.fields)).toEqual([
      { email: 'early@example.org', description: 'typed while the script loaded' },
    ]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('keeps the activation text typed before hydration and opens the web app with it', async () => {
    const { page, context, problems } = await site.open(phone);
    const script = await loadHoldingScript(page, '/activate');
    await page.getByLabel('Email', { exact: true }).fill('early@example.org');
    await page.getByLabel('Activation key', { exact: true }).fill('key-typed-early');

    script.release();
    await hydrated(page);
    const [tab] = await Promise.all([
      context.waitForEvent('page'),
      page.getByRole('button', { name: 'Activate' }).click(),
    ]);
    expect(Object.fromEntries(new URL(tab.url()).searchParams)).toEqual({
      email: 'early@example.org',
      token: 'key-typed-early',
      key: 'key-typed-early',
    });
    await page.getByRole('heading', { name: 'Congratulations' }).waitFor();
    expect(await page.getByText('Required', { exact: true }).count()).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('posts the waitlist form natively when Join is pressed before the script arrives', async () => {
    const { page, context, problems } = await site.open(phone);
    const script = await loadHoldingScript(page, '/');
    await page.getByLabel('Email', { exact: true }).fill('native@example.org');
    await page.getByLabel('About me (or github profile)').fill('no script yet');
    // The joined page asks for the held script too, and its load event would wait for it: the
    // parsed document is what counts here.
    await Promise.all([
      page.waitForURL(/\/\?joined/, { waitUntil: 'domcontentloaded' }),
      page.getByRole('button', { name: 'Join' }).click(),
    ]);

    expect(await page.getByRole('status').innerText()).toContain(
      'You are successfully joined to the wait list.',
    );
    // Sent before the answer, or, if that call failed (a keep-alive connection the backend closed
    // just then), from the outbox within a second or two: the person sees "joined" either way.
    await until('the backend has the signup', () => site.backend.received.length > 0, 10_000);
    expect(site.backend.received.map((r) => r.fields)).toEqual([
      { email: 'native@example.org', description: 'no script yet' },
    ]);
    script.release();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('keeps the menu a tap opened before hydration open as the script takes over', async () => {
    const { page, context, problems } = await site.open(phone);
    const script = await loadHoldingScript(page, '/');
    const menu = page.getByRole('button', { name: 'Menu' });
    const item = page.getByRole('link', { name: 'Waitlis', exact: true });
    await menu.click();
    expect(await item.isVisible()).toBe(true);
    expect(await menuExpanded(page)).toBe(true);

    script.release();
    await hydrated(page);
    expect(await item.isVisible()).toBe(true);
    expect(await menuExpanded(page)).toBe(true);
    // Still the browser's popover after hydration: a tap outside it (it hangs over the hero) closes
    // it.
    await page.mouse.click(phone.width - 20, phone.height - 40);
    expect(await item.isVisible()).toBe(false);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('closes the menu when the keyboard focus leaves it, before hydration too', async () => {
    const { page, context, problems } = await site.open(phone);
    await loadHoldingScript(page, '/');
    const dropdown = page.locator('.menu-dropdown');
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Activate');
    expect(await dropdown.isVisible()).toBe(true);
    await page.keyboard.press('Tab'); // on to the brand link, out of the menu
    expect(await dropdown.isVisible()).toBe(false);
    expect(await isHydrated(page)).toBe(false);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('starts hydrating at the first key in a form when the browser is never idle', async () => {
    const { page, context, problems } = await site.open(phone);
    // A browser that never reports idle time: only the visitor can start hydration. It counts
    // what the document's script asked to do once idle.
    await context.addInitScript(() => {
      const counts = window as unknown as { idleAsked: number };
      counts.idleAsked = 0;
      window.requestIdleCallback = () => ++counts.idleAsked;
    });
    const asked: string[] = [];
    page.on('request', (request) => {
      if (/\/assets\/entry-/.test(request.url())) asked.push(request.url());
    });
    await page.goto(site.url('/'));
    // Painted, the script has asked for idle time twice (hydration, the motion check): from then
    // on nothing but the visitor can start hydration.
    await page.waitForFunction(() => (window as unknown as { idleAsked: number }).idleAsked >= 2);
    expect(asked).toEqual([]);
    expect(await isHydrated(page)).toBe(false);

    await page.getByLabel('Email', { exact: true }).press('a');
    await hydrated(page);
    expect(asked).toHaveLength(1);
    await page.getByLabel('Email', { exact: true }).pressSequentially('@example.org');
    expect(await page.getByLabel('Email', { exact: true }).inputValue()).toBe('a@example.org');
    expect(problems).toEqual([]);
    await context.close();
  });

  it.each(['no-preference', 'reduce'] as const)(
    'keeps the starfall still without a GPU to composite it (reduced motion: %s), and moves it only by transform and opacity where one is',
    async (reducedMotion) => {
      const { page, context, problems } = await site.open({ ...phone, reducedMotion });
      // The document's script runs its work in idle callbacks: these count the ones that ran.
      await context.addInitScript(() => {
        const counts = window as unknown as { idleRan: number };
        counts.idleRan = 0;
        const request = window.requestIdleCallback.bind(window);
        window.requestIdleCallback = (callback, options) =>
          request((deadline) => {
            try {
              callback(deadline);
            } finally {
              counts.idleRan++;
            }
          }, options);
      });
      // The motion check's worker, where it starts (motion allowed), ends once it has answered.
      const workerEnded = new Promise<void>((resolve) =>
        page.on('worker', (worker) => worker.once('close', () => resolve())),
      );
      await page.goto(site.url('/'));
      await hydrated(page);
      const starfall = () =>
        page.evaluate(() =>
          document
            .getAnimations()
            .filter((animation) => (animation as CSSAnimation).animationName === 'starfall')
            .map((animation) =>
              [
                ...new Set(
                  (animation.effect as KeyframeEffect)
                    .getKeyframes()
                    .flatMap((frame) => Object.keys(frame)),
                ),
              ].sort(),
            ),
        );
      // This Chromium has no GPU (--disable-gpu): the document's script leaves the stars still.
      // Its two idle tasks (hydration, the motion check) have run, and the check has answered.
      await page.waitForFunction(() => (window as unknown as { idleRan: number }).idleRan >= 2);
      if (reducedMotion === 'no-preference') await workerEnded;
      expect(await page.evaluate(() => document.documentElement.hasAttribute('data-motion'))).toBe(
        false,
      );
      expect(await starfall()).toEqual([]);

      // Where a GPU was found, they fall, animating only what the compositor animates alone.
      await page.evaluate(() => document.documentElement.setAttribute('data-motion', ''));
      const moving = await starfall();
      if (reducedMotion === 'reduce') expect(moving).toEqual([]);
      else {
        expect(moving).toHaveLength(12);
        for (const properties of moving)
          expect(
            properties.filter(
              (p) => !['composite', 'computedOffset', 'easing', 'offset'].includes(p),
            ),
          ).toEqual(['opacity', 'transform']);
      }
      expect(problems).toEqual([]);
      await context.close();
    },
  );
});

// No shift through hydration is a matter of layout: checked in both windows.
describe.each(VIEWPORTS)('before hydration at $width px', ({ name, width, height }) => {
  it('shows a returning visitor the joined view from the first paint, and keeps it through hydration', async () => {
    const { page, context, problems } = await site.open({ width, height });
    await context.addInitScript(() => localStorage.setItem('subscribed', 'true'));
    const script = await loadHoldingScript(page, '/');

    const joined = page.getByRole('status');
    expect(await joined.innerText()).toContain('You are successfully joined to the wait list.');
    expect(await page.locator('form.waitlist-form').isVisible()).toBe(false);
    expect(await page.getByRole('heading', { name: 'Congratulations' }).isVisible()).toBe(true);
    expect(await isHydrated(page)).toBe(false);
    await screenshot(page, `${name}-joined-before-hydration`);
    const before = await page.locator('.hero-form').boundingBox();

    script.release();
    await hydrated(page);
    expect(await joined.innerText()).toContain('You are successfully joined to the wait list.');
    expect(await page.locator('form').count()).toBe(0);
    // No flash: the view keeps its place and size, and it takes no focus from the visitor.
    expect(await page.locator('.hero-form').boundingBox()).toEqual(before);
    expect(await page.evaluate(() => document.activeElement?.id)).not.toBe('result-title');
    expect(problems).toEqual([]);
    await context.close();
  });
});
