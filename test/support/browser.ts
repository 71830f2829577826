// Debian's Chromium driven by playwright-core (no browser download). Every page records its
// console errors/warnings and uncaught errors, so a test can require there were none.
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from '../../scripts/chromium-flags';

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_FLAGS, headless: true });
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
    viewport: { width: options.width ?? 1280, height: options.height ?? 800 },
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
