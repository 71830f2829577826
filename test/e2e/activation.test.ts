// The activation form in Chromium (docs/product.md §4): the new tab, success, a blocked tab, the
// error view, in a phone's window; the success and error views are laid out at both widths.
import { atBothWidths, hydrated, startSite, type Site } from '../support/site';

let site: Site;
beforeAll(async () => {
  site = await startSite();
});
afterAll(() => site?.close());

describe('activation', () => {
  it('validates, then opens /auth/activate on the web app in a new tab and shows success', async () => {
    const { page, context, problems } = await site.open();
    await page.goto(site.url('/activate'));
    await hydrated(page);
    await page.getByRole('button', { name: 'Activate' }).click();
    await page.getByText('Email address is required').waitFor();
    await page.getByText('Required', { exact: true }).waitFor();

    await page.getByLabel('Email', { exact: true }).fill('zoë+1@example.org');
    await page.getByLabel('Activation key', { exact: true }).fill('k&y 1');
    const [tab] = await Promise.all([
      context.waitForEvent('page'),
      page.getByRole('button', { name: 'Activate' }).click(),
    ]);
    const opened = new URL(tab.url());
    expect(`${opened.origin}${opened.pathname}`).toBe(`${site.backend.url}/auth/activate`);
    // token is the product's name for the key, key the name the web app reads (docs/product.md §4)
    expect(Object.fromEntries(opened.searchParams)).toEqual({
      email: 'zoë+1@example.org',
      token: 'k&y 1',
      key: 'k&y 1',
    });
    expect(await tab.evaluate(() => window.opener)).toBeNull();

    await page.getByRole('heading', { name: 'Congratulations' }).waitFor();
    expect((await page.locator('.result-body').innerText()).trim()).toBe(
      'You are successfully activated your free subscription',
    );
    await atBothWidths(page, 'activation-success', [
      page.getByRole('heading', { name: 'Congratulations' }),
    ]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows the error view; the back arrow returns to the form with focus on the email', async () => {
    const { page, context, problems } = await site.open();
    await page.addInitScript(() => {
      window.open = () => {
        throw new Error('Opening tabs is not allowed here');
      };
    });
    await page.goto(site.url('/activate?email=a%40b.co'));
    await hydrated(page);
    await page.getByLabel('Activation key', { exact: true }).fill('KEY');
    await page.getByRole('button', { name: 'Activate' }).click();
    await page.getByRole('heading', { name: 'Error' }).waitFor();
    expect(await page.getByRole('alert').innerText()).toBe('Opening tabs is not allowed here');
    await atBothWidths(page, 'activation-error', [page.getByRole('alert')]);
    await page.getByRole('button', { name: 'Back to the form' }).click();
    await page.getByRole('heading', { name: 'Enter your activation key' }).waitFor();
    await page.waitForFunction(() => document.activeElement?.getAttribute('name') === 'email');
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe('activation edge cases', () => {
  it('tells the visitor how to continue when the browser blocks the new tab', async () => {
    const { page, context } = await site.open();
    await page.addInitScript(() => {
      window.open = () => null;
    });
    await page.goto(site.url('/activate'));
    await hydrated(page);
    await page.getByLabel('Email', { exact: true }).fill('a@b.co');
    await page.getByLabel('Activation key', { exact: true }).fill('KEY');
    await page.getByRole('button', { name: 'Activate' }).click();
    const link = page.getByRole('link', { name: 'Open the activation page' });
    await link.waitFor();
    expect(await link.getAttribute('href')).toBe(
      `${site.backend.url}/auth/activate?email=a%40b.co&token=KEY&key=KEY`,
    );
    await context.close();
  });

  it('prefills ?email= and focuses the key', async () => {
    const { page, context } = await site.open();
    await page.goto(site.url('/activate?email=a%40b.co'));
    await hydrated(page);
    expect(await page.getByLabel('Email', { exact: true }).inputValue()).toBe('a@b.co');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('token');
    await context.close();
  });
});
