// Rendering, hydration, navigation, the dropdown, the preview variant and the 404 screen in
// Chromium against the production build. The landing page's layout, its preview and the menu are
// checked in a phone's window and a desktop's; the rest in a phone's.
import {
  atBothWidths,
  hydrated,
  menuExpanded,
  screenshot,
  startSite,
  unexpected,
  VIEWPORTS,
  type Site,
} from '../support/site';

let site: Site;
beforeAll(async () => {
  site = await startSite();
});
afterAll(() => site?.close());

describe.each(VIEWPORTS)('layout at $width px', ({ name, width, height }) => {
  it('renders every part of the landing page and hydrates without a warning', async () => {
    const { page, context, problems } = await site.open({ width, height });
    await page.goto(site.url('/'));
    await hydrated(page);
    for (const text of [
      'BETA',
      'From an org-mode lover to org-mode lovers',
      'Join wait list',
      'Everything is plain text',
      'Features',
      'Concacts',
      'Social',
      '© 2023',
    ]) {
      expect(await page.getByText(text, { exact: false }).first().isVisible()).toBe(true);
    }
    expect(await page.locator('.feature-card').count()).toBe(7);
    // The org sample is set in the page's monospace stack, not in the browser's bare default for
    // <code>.
    const [sampleFont, codeFont] = await page
      .locator('.org-sample')
      .evaluate((pre) => [
        getComputedStyle(pre).fontFamily,
        getComputedStyle(pre.querySelector('code')!).fontFamily,
      ]);
    expect(sampleFont).toMatch(/^ui-monospace, .*monospace$/);
    expect(codeFont).toBe(sampleFont);
    // usable width: nothing wider than the viewport
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      width,
    );
    await screenshot(page, `${name}-landing`);
    expect(problems).toEqual([]);
    await context.close();
  });

  it(`shows the ${width < 768 ? 'phone' : 'desktop'} preview`, async () => {
    const { page, context } = await site.open({ width, height });
    await page.goto(site.url('/'));
    const preview = page.locator('.preview-image');
    await preview.scrollIntoViewIfNeeded();
    await page.waitForFunction(
      () => (document.querySelector('.preview-image') as HTMLImageElement).complete,
    );
    const { src, naturalWidth, shownWidth } = await preview.evaluate((img: HTMLImageElement) => ({
      src: img.currentSrc,
      naturalWidth: img.naturalWidth,
      shownWidth: img.getBoundingClientRect().width,
    }));
    // This window is 1 dppx: the desktop's 1x file; a phone has one file, drawn for 2 dppx.
    expect(
      src.endsWith(
        width < 768 ? '/images/preview-phone-2x.webp' : '/images/preview-desktop-1x.webp',
      ),
    ).toBe(true);
    // Decoded, and drawn at least as sharp as the window shows it.
    expect(naturalWidth).toBeGreaterThanOrEqual(Math.round(shownWidth));
    await context.close();
  });

  it('opens the dropdown, closes it on an item, Escape, a click outside and the focus leaving, and navigates without reloading', async () => {
    const { page, context, problems } = await site.open({ width, height });
    const documents: string[] = [];
    page.on('request', (req) => req.resourceType() === 'document' && documents.push(req.url()));
    await page.goto(site.url('/'));
    await hydrated(page);
    const button = page.getByRole('button', { name: 'Menu' });
    const dropdown = page.locator('.menu-dropdown');

    expect(await menuExpanded(page)).toBe(false);
    await button.click();
    expect(await menuExpanded(page)).toBe(true);
    expect(await dropdown.evaluate((el) => getComputedStyle(el).width)).toBe('208px'); // 13rem
    await screenshot(page, `${name}-menu-open`);
    // Escape from an item hides it and gives the focus back to the button.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Waitlis');
    await page.keyboard.press('Escape');
    expect(await dropdown.isVisible()).toBe(false);
    expect(await menuExpanded(page)).toBe(false);
    expect(await button.evaluate((el) => el === document.activeElement)).toBe(true);

    // Tabbing on past the last item closes it, so it never hangs over where the focus went.
    await button.press('Enter');
    expect(await dropdown.isVisible()).toBe(true);
    for (const item of ['Waitlis', 'Activate', 'OrgNoteBETA']) {
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(item);
    }
    expect(await dropdown.isVisible()).toBe(false);

    await button.click();
    await page.locator('footer').click({ position: { x: 5, y: 5 } });
    expect(await dropdown.isVisible()).toBe(false);

    await button.click();
    await page.getByRole('link', { name: 'Activate' }).click();
    await page.getByRole('heading', { name: 'Enter your activation key' }).waitFor();
    expect(await dropdown.isVisible()).toBe(false);
    await button.click();
    await page.getByRole('link', { name: 'Waitlis', exact: true }).click();
    await page.getByRole('heading', { name: 'Join wait list' }).waitFor();
    expect(documents).toEqual([site.url('/')]);
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe('unknown pages', () => {
  it("answers 404 with 'Unexpected Application Error!' and hydrates it cleanly", async () => {
    const { page, context, problems } = await site.open();
    const res = await page.goto(site.url('/no/such/page'));
    expect(res?.status()).toBe(404);
    await hydrated(page);
    await page.getByRole('heading', { name: 'Unexpected Application Error!' }).waitFor();
    expect(await page.getByText('404 Not Found').isVisible()).toBe(true);
    await atBothWidths(page, '404', [page.getByText('404 Not Found')]);
    expect(unexpected(problems, [404])).toEqual([]);
    await context.close();
  });
});

describe('motion', () => {
  // Where a GPU composites the page, the document's script marks <html data-motion> (here it is set
  // by hand: this Chromium has none; test/e2e/before-hydration.test.ts covers the check itself).
  it('stops the starfall when the visitor prefers reduced motion, even where a GPU would move it', async () => {
    const { page, context } = await site.open({ reducedMotion: 'reduce' });
    await page.goto(site.url('/'));
    await page.evaluate(() => document.documentElement.setAttribute('data-motion', ''));
    expect(
      await page
        .locator('.star')
        .first()
        .evaluate((el) => getComputedStyle(el).animationName),
    ).toBe('none');
    const moving = await site.open({ reducedMotion: 'no-preference' });
    await moving.page.goto(site.url('/'));
    await moving.page.evaluate(() => document.documentElement.setAttribute('data-motion', ''));
    expect(
      await moving.page
        .locator('.star')
        .first()
        .evaluate((el) => getComputedStyle(el).animationName),
    ).toBe('starfall');
    await moving.context.close();
    await context.close();
  });
});
