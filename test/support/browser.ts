// Debian's Chromium driven by playwright-core (no browser download). One browser serves the whole
// browser suite, as Playwright's own runner does it: the e2e project's global setup starts it
// (e2e-setup.ts), each file connects to it once, and each test gets a fresh context of its own.
// Every page records its console errors/warnings and uncaught errors, so a test can require there
// were none.
import {
  chromium,
  type Browser,
  type BrowserContext,
  type BrowserServer,
  type Page,
} from 'playwright-core';
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from '../../scripts/chromium-flags';

/** The shared browser's endpoint, from the global setup to the workers it starts. */
export const BROWSER_ENDPOINT_ENV = 'ORGNOTE_TEST_BROWSER_ENDPOINT';

export const PHONE = { name: 'phone', width: 375, height: 740 } as const;
export const DESKTOP = { name: 'desktop', width: 1280, height: 800 } as const;
/** Where layout is checked (wrapping, overflow, tap targets, the menu, axe): both widths. */
export const VIEWPORTS = [PHONE, DESKTOP] as const;

/** The run's one Chromium, listening on loopback behind an unguessable path. */
export function launchBrowserServer(): Promise<BrowserServer> {
  return chromium.launchServer({
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_FLAGS,
    headless: true,
  });
}

/** A connection of this file to the run's Chromium; closing it closes the file's contexts. */
export function connectBrowser(): Promise<Browser> {
  const endpoint = process.env[BROWSER_ENDPOINT_ENV];
  if (!endpoint)
    throw new Error(
      `${BROWSER_ENDPOINT_ENV} is not set: the browser suite runs through Jest's e2e project, ` +
        'whose global setup starts Chromium (npx jest test/e2e/<file>)',
    );
  return chromium.connect(endpoint);
}

export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  /** console errors/warnings and page errors, in order */
  problems: string[];
}

/**
 * How a test knows React has hydrated, with nothing in the page for it: React DOM reports each
 * commit to a DevTools hook when one is there as it loads (React DevTools installs it the same
 * way), and a hydrated page's first commit is its hydration.
 */
function hydrationProbe(): void {
  const flags = window as unknown as {
    __REACT_DEVTOOLS_GLOBAL_HOOK__: object;
    __hydrated?: boolean;
  };
  flags.__REACT_DEVTOOLS_GLOBAL_HOOK__ = {
    supportsFiber: true,
    renderers: new Map(),
    inject: () => 1,
    checkDCE: () => {},
    onCommitFiberRoot: () => {
      flags.__hydrated = true;
    },
    onCommitFiberUnmount: () => {},
    onPostCommitFiberRoot: () => {},
  };
}

/** A page in a context of its own, a phone's window unless the test asks for another. */
export async function openPage(
  browser: Browser,
  options: {
    width?: number;
    height?: number;
    javaScriptEnabled?: boolean;
    reducedMotion?: 'reduce' | 'no-preference';
  } = {},
): Promise<WatchedPage> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? PHONE.width, height: options.height ?? PHONE.height },
    javaScriptEnabled: options.javaScriptEnabled ?? true,
    reducedMotion: options.reducedMotion,
  });
  await context.addInitScript(hydrationProbe);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error' || msg.type() === 'warning')
      problems.push(`${msg.type()}: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  return { page, context, problems };
}
