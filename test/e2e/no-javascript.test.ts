// Both forms with JavaScript disabled in Chromium: the waitlist records the signup through a
// native POST, the activation form opens the web app's activation page in a new tab.
import { screenshot, startSite, type Site } from '../support/site';

let site: Site;
beforeAll(async () => {
  site = await startSite();
}, 30_000);
afterAll(() => site?.close());
beforeEach(() => {
  site.backend.received.length = 0;
});

describe('without JavaScript', () => {
  it('joins the waitlist through a native POST and lands on the joined view', async () => {
    const { page, context } = await site.open({ javaScriptEnabled: false, width: 375, height: 740 });
    await page.goto(site.url('/'));
    await page.getByLabel('Email', { exact: true }).fill('nojs@example.org');
    await page.getByLabel('About me (or github profile)').fill('I block scripts');
    const [response] = await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Join' }).click()]);
    expect(new URL(response!.url()).search).toBe('?joined');
    expect(response!.request().redirectedFrom()?.method()).toBe('POST');
    await page.getByRole('heading', { name: 'Congratulations' }).waitFor();
    expect(await page.getByText('You are successfully joined to the wait list.', { exact: false }).isVisible()).toBe(true);
    expect(site.backend.received.map((r) => [r.url, r.fields])).toEqual([['/api/subscriptions', { email: 'nojs@example.org', description: 'I block scripts' }]]);
    await screenshot(page, 'phone-nojs-joined');
    await context.close();
  });

  it('shows the messages and keeps what was typed when the input is invalid', async () => {
    const { page, context } = await site.open({ javaScriptEnabled: false });
    await page.goto(site.url('/'));
    await page.getByLabel('About me (or github profile)').fill('kept text');
    const [response] = await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Join' }).click()]);
    expect(response!.status()).toBe(400);
    await page.getByText('Email address is required').waitFor();
    expect(await page.getByLabel('About me (or github profile)').inputValue()).toBe('kept text');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('email');
    expect(site.backend.received).toHaveLength(0);
    await screenshot(page, 'desktop-nojs-invalid');
    await context.close();
  });

  it('opens the activation page of the web app in a new tab with email and token', async () => {
    const { page, context } = await site.open({ javaScriptEnabled: false });
    await page.goto(site.url('/activate?email=nojs%40example.org'));
    await page.getByLabel('Activation key', { exact: true }).fill('KEY-123');
    const [tab] = await Promise.all([context.waitForEvent('page'), page.getByRole('button', { name: 'Activate' }).click()]);
    await tab.waitForLoadState();
    const opened = new URL(tab.url());
    expect(`${opened.origin}${opened.pathname}`).toBe(`${site.backend.url}/auth/activate`);
    expect(Object.fromEntries(opened.searchParams)).toEqual({ email: 'nojs@example.org', token: 'KEY-123' });
    await context.close();
  });

  it('opens the menu through focus alone', async () => {
    const { page, context } = await site.open({ javaScriptEnabled: false });
    await page.goto(site.url('/'));
    await page.getByRole('button', { name: 'Menu' }).focus();
    expect(await page.locator('.menu-dropdown').isVisible()).toBe(true);
    await context.close();
  });
});
