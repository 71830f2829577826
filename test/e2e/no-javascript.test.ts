// Both forms with JavaScript disabled in Chromium, in a phone's window: the waitlist records the
// signup through a native POST, the activation form opens the web app's activation page in a new
// tab (through our /activate/open, which redirects there).
import { until } from '../support/wait';
import { atBothWidths, menuExpanded, PHONE, startSite, type Site } from '../support/site';

let site: Site;
beforeAll(async () => {
  site = await startSite();
});
afterAll(() => site?.close());
beforeEach(() => {
  site.backend.received.length = 0;
});

describe('without JavaScript', () => {
  it('joins the waitlist through a native POST and lands on the joined view', async () => {
    const { page, context } = await site.open({ javaScriptEnabled: false });
    await page.goto(site.url('/'));
    await page.getByLabel('Email', { exact: true }).fill('nojs@example.org');
    await page.getByLabel('About me (or github profile)').fill('I block scripts');
    const [response] = await Promise.all([
      page.waitForNavigation(),
      page.getByRole('button', { name: 'Join' }).click(),
    ]);
    expect(new URL(response!.url()).search).toBe('?joined');
    expect(response!.request().redirectedFrom()?.method()).toBe('POST');
    await page.getByRole('heading', { name: 'Congratulations' }).waitFor();
    expect(
      await page
        .getByText('You are successfully joined to the wait list.', { exact: false })
        .isVisible(),
    ).toBe(true);
    // Sent before the answer, or, when that call took longer than UPSTREAM_TIMEOUT_MS (a busy
    // machine), from the outbox soon after: the person sees "joined" either way.
    await until('the backend has the signup', () => site.backend.received.length > 0, 10_000);
    expect(site.backend.received.map((r) => [r.url, r.fields])).toEqual([
      ['/api/subscriptions', { email: 'nojs@example.org', description: 'I block scripts' }],
    ]);
    await atBothWidths(page, 'nojs-joined', [
      page.getByRole('heading', { name: 'Congratulations' }),
    ]);
    await context.close();
  });

  it('shows the messages and keeps what was typed when the input is invalid', async () => {
    const { page, context } = await site.open({ javaScriptEnabled: false });
    await page.goto(site.url('/'));
    await page.getByLabel('About me (or github profile)').fill('kept text');
    const [response] = await Promise.all([
      page.waitForNavigation(),
      page.getByRole('button', { name: 'Join' }).click(),
    ]);
    expect(response!.status()).toBe(400);
    await page.getByText('Email address is required').waitFor();
    expect(await page.getByLabel('About me (or github profile)').inputValue()).toBe('kept text');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('email');
    expect(site.backend.received).toHaveLength(0);
    await atBothWidths(page, 'nojs-invalid', [page.getByText('Email address is required')]);
    await context.close();
  });

  it('opens the activation page of the web app in a new tab with email, token and key', async () => {
    const { page, context } = await site.open({ javaScriptEnabled: false });
    await page.goto(site.url('/activate?email=nojs%40example.org'));
    await page.getByLabel('Activation key', { exact: true }).fill('KEY-123');
    const [tab] = await Promise.all([
      context.waitForEvent('page'),
      page.getByRole('button', { name: 'Activate' }).click(),
    ]);
    // The form posts to our /activate/open, whose 303 lands here: a form alone could not send
    // `key`.
    await tab.waitForURL((url) => url.pathname === '/auth/activate');
    const opened = new URL(tab.url());
    expect(`${opened.origin}${opened.pathname}`).toBe(`${site.backend.url}/auth/activate`);
    expect(Object.fromEntries(opened.searchParams)).toEqual({
      email: 'nojs@example.org',
      token: 'KEY-123',
      key: 'KEY-123',
    });
    // The key was in our URL too; the web app is not told that URL (Referrer-Policy: no-referrer).
    const arrived = site.backend.received.filter((r) => r.url.startsWith('/auth/activate'));
    expect(arrived.map((r) => [r.method, r.headers.referer])).toEqual([['GET', undefined]]);
    await context.close();
  });

  it('shows a page leading back to the form, email kept, when the key is empty', async () => {
    const { page, context } = await site.open({ javaScriptEnabled: false });
    await page.goto(site.url('/activate?email=nojs%40example.org'));
    const [tab] = await Promise.all([
      context.waitForEvent('page'),
      page.getByRole('button', { name: 'Activate' }).click(),
    ]);
    await tab.getByRole('heading', { name: 'Could not send the form' }).waitFor();
    expect(await tab.getByText('Activation key: Required').isVisible()).toBe(true);
    await tab.getByRole('link', { name: 'Back to the activation form' }).click();
    await tab.getByRole('heading', { name: 'Enter your activation key' }).waitFor();
    expect(new URL(tab.url()).pathname + new URL(tab.url()).search).toBe(
      '/activate?email=nojs%40example.org',
    );
    expect(await tab.getByLabel('Email', { exact: true }).inputValue()).toBe('nojs@example.org');
    expect(site.backend.received).toHaveLength(0);
    await context.close();
  });

  it('opens the menu from a tap that does not focus its button, as in Safari, and closes it on Escape or a tap outside', async () => {
    const { page, context } = await site.open({ javaScriptEnabled: false });
    await page.goto(site.url('/'));
    const button = page.getByRole('button', { name: 'Menu' });
    const dropdown = page.locator('.menu-dropdown');
    expect(await dropdown.isVisible()).toBe(false);
    expect(await menuExpanded(page)).toBe(false);

    // A click event alone, as Safari's tap gives (it focuses no button): the focus stays where
    // autofocus put it.
    await button.dispatchEvent('click');
    expect(await dropdown.isVisible()).toBe(true);
    expect(await menuExpanded(page)).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('email');
    expect(
      await page.getByRole('link', { name: 'Waitlis', exact: true }).getAttribute('href'),
    ).toBe('/');
    expect(await page.getByRole('link', { name: 'Activate' }).getAttribute('href')).toBe(
      '/activate',
    );
    await page.keyboard.press('Escape');
    expect(await dropdown.isVisible()).toBe(false);
    expect(await menuExpanded(page)).toBe(false);

    await button.click();
    expect(await dropdown.isVisible()).toBe(true);
    await page.mouse.click(PHONE.width - 15, PHONE.height - 40);
    expect(await dropdown.isVisible()).toBe(false);

    await button.click();
    await Promise.all([
      page.waitForNavigation(),
      page.getByRole('link', { name: 'Activate' }).click(),
    ]);
    await page.getByRole('heading', { name: 'Enter your activation key' }).waitFor();
    expect(await dropdown.isVisible()).toBe(false);
    await context.close();
  });
});
