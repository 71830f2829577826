// Which files a first visit to the site's `/` fetches from the site, as Chromium fetched them on
// a cold load (a fresh context: nothing cached): the document, its stylesheet and scripts, the
// images, the icon, a worker's script. The bench replays the list, each file once per visit.
import { chromium } from 'playwright-core';
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from '../../chromium-flags';

const LOAD_TIMEOUT_MS = 30_000;

/** The paths (with any query) a cold load of `origin`/ fetched from `origin`, in fetch order. */
export async function firstVisitPaths(origin: string): Promise<string[]> {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_FLAGS });
  try {
    const context = await browser.newContext();
    const paths = new Set<string>();
    // The context's requests, not only the page's: a worker's script is fetched by the worker.
    context.on('request', (request) => {
      const url = new URL(request.url());
      if (url.origin === origin) paths.add(`${url.pathname}${url.search}`);
    });
    const page = await context.newPage();
    await page.goto(`${origin}/`, { waitUntil: 'load', timeout: LOAD_TIMEOUT_MS });
    await page.waitForLoadState('networkidle', { timeout: LOAD_TIMEOUT_MS });
    await context.close();
    return [...paths];
  } finally {
    await browser.close();
  }
}
