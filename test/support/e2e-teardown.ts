// The browser suite's global teardown (jest.config.js, e2e project): closes the run's Chromium,
// which e2e-setup.ts started.
import { BROWSER_ENDPOINT_ENV } from './browser';
import { browserServerOfTheRun } from './e2e-setup';

export default async function e2eTeardown(): Promise<void> {
  await browserServerOfTheRun()?.close();
  delete process.env[BROWSER_ENDPOINT_ENV];
}
