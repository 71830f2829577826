// The browser suite's global setup (jest.config.js, e2e project): the production build its
// server runs (build-setup.ts), and the run's one Chromium. Its endpoint goes to the workers,
// which start after this and inherit the environment; e2e-teardown.ts closes it.
import type { BrowserServer } from 'playwright-core';
import { BROWSER_ENDPOINT_ENV, launchBrowserServer } from './browser';
import buildSetup from './build-setup';

/** What the teardown closes: Jest runs both in its main process, and shares their globals. */
export const BROWSER_SERVER_GLOBAL = '__orgnoteTestBrowserServer';

export default async function e2eSetup(): Promise<void> {
  await buildSetup();
  const server = await launchBrowserServer();
  (globalThis as Record<string, unknown>)[BROWSER_SERVER_GLOBAL] = server;
  process.env[BROWSER_ENDPOINT_ENV] = server.wsEndpoint();
}

export function browserServerOfTheRun(): BrowserServer | undefined {
  return (globalThis as Record<string, unknown>)[BROWSER_SERVER_GLOBAL] as
    BrowserServer | undefined;
}
