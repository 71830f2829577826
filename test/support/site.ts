// The end-to-end fixture: the built production server in a child process, a real multer backend
// on 127.0.0.1 behind it (also standing in for the web app's /auth/activate), and Chromium.
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startBackend, type TestBackend } from './backend';
import { launchBrowser, openPage, type WatchedPage } from './browser';
import { startServerProcess, type ServerProcess } from './server-process';

const SCREENSHOT_DIR = path.resolve(__dirname, '../../test-artifacts/screenshots');
export const VIEWPORTS = [
  { name: 'phone', width: 375, height: 740 },
  { name: 'desktop', width: 1280, height: 800 },
] as const;

export interface Site {
  browser: Browser;
  server: ServerProcess;
  backend: TestBackend;
  url: (path?: string) => string;
  open: (options?: Parameters<typeof openPage>[1]) => Promise<WatchedPage>;
  close: () => Promise<void>;
}

export async function startSite(env: Record<string, string> = {}): Promise<Site> {
  const backend = await startBackend();
  const [browser, server] = await Promise.all([
    launchBrowser(),
    startServerProcess({ BACKEND_URL: backend.url, WEB_APP_URL: backend.url, LOG_LEVEL: 'warn', ...env }),
  ]);
  return {
    browser,
    server,
    backend,
    url: (p = '/') => `${server.url}${p}`,
    open: (options) => openPage(browser, options),
    close: async () => {
      await browser.close();
      server.child.kill('SIGTERM');
      await server.exited;
      await backend.close();
    },
  };
}

/** Waits until React has hydrated (the menu marks itself script-driven). */
export async function hydrated(page: Page): Promise<void> {
  await page.waitForSelector('.menu[data-enhanced="true"]');
}

export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: false });
}

/** Problems that are not bugs: the 4xx/5xx answers a test provoked on purpose. */
export function unexpected(problems: string[], allowedStatuses: number[] = []): string[] {
  return problems.filter((p) => !allowedStatuses.some((status) => p.includes(`status of ${status}`)));
}
