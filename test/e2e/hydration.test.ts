// Hydration in a real browser against the built production server: no warnings, and moving
// between the two forms happens on the client, without a full page load.
import type { Browser } from 'playwright-core';
import { launchBrowser, openPage } from '../support/browser';
import { startServerProcess, type ServerProcess } from '../support/server-process';

let browser: Browser;
let server: ServerProcess;

beforeAll(async () => {
  [browser, server] = await Promise.all([launchBrowser(), startServerProcess({ LOG_LEVEL: 'warn' })]);
});
afterAll(async () => {
  await browser?.close();
  server?.child.kill('SIGTERM');
});

describe('hydration', () => {
  it('hydrates without console errors or warnings and navigates on the client', async () => {
    const { page, context, problems } = await openPage(browser);
    const documentLoads: string[] = [];
    page.on('request', (req) => {
      if (req.resourceType() === 'document') documentLoads.push(req.url());
    });
    await page.goto(`${server.url}/`);
    await page.waitForFunction(() => document.querySelector('.menu')?.getAttribute('data-enhanced') === 'true');
    await page.evaluate(() => ((window as unknown as { marker: string }).marker = 'same document'));

    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('link', { name: 'Activate' }).click();
    await page.getByRole('heading', { name: 'Enter your activation key' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/activate');

    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('link', { name: 'Waitlis' }).click();
    await page.getByRole('heading', { name: 'Join wait list' }).waitFor();

    expect(await page.evaluate(() => (window as unknown as { marker?: string }).marker)).toBe('same document');
    expect(documentLoads).toEqual([`${server.url}/`]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('hydrates the 404 screen without errors', async () => {
    const { page, context, problems } = await openPage(browser);
    const res = await page.goto(`${server.url}/missing-page`);
    expect(res?.status()).toBe(404);
    await page.waitForFunction(() => document.querySelector('.menu')?.getAttribute('data-enhanced') === 'true');
    expect(await page.getByRole('heading', { name: 'Unexpected Application Error!' }).isVisible()).toBe(true);
    // the document itself answered 404, which Chromium reports once; nothing else may complain
    expect(problems.filter((p) => !p.includes('404 (Not Found)'))).toEqual([]);
    await context.close();
  });
});
