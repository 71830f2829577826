// The end-to-end fixture: the built production server in a child process, a real multer backend
// on 127.0.0.1 behind it (also standing in for the web app's /auth/activate), and this file's
// connection to the run's Chromium (browser.ts).
import fs from 'node:fs';
import path from 'node:path';
import { simpleParser, type ParsedMail } from 'mailparser';
import type { Browser, Locator, Page } from 'playwright-core';
import { freePort } from '../../scripts/lib/launch/ports';
import { startBackend, type TestBackend } from './backend';
import { connectBrowser, openPage, VIEWPORTS, type WatchedPage } from './browser';
import { tempDataDir } from './config';
import { startServerProcess, type ServerProcess } from './server-process';
import { until } from './wait';

export { DESKTOP, PHONE, VIEWPORTS } from './browser';

/** Screenshots are taken with SCREENSHOTS=1 only: no test reads them, people look at them. */
const SCREENSHOTS = process.env.SCREENSHOTS === '1';
const SCREENSHOT_DIR = path.resolve(__dirname, '../../test-artifacts/screenshots');

export interface Site {
  browser: Browser;
  server: ServerProcess;
  backend: TestBackend;
  /** DATA_DIR: the SQLite file and, without SMTP_URL, the mail as .eml files. */
  dataDir: string;
  url: (path?: string) => string;
  open: (options?: Parameters<typeof openPage>[1]) => Promise<WatchedPage>;
  close: () => Promise<void>;
}

export async function startSite(env: Record<string, string> = {}): Promise<Site> {
  const backend = await startBackend();
  const dataDir = env.DATA_DIR ?? tempDataDir();
  const [browser, server] = await Promise.all([
    connectBrowser(),
    startServerProcess({
      BACKEND_URL: backend.url,
      WEB_APP_URL: backend.url,
      LOG_LEVEL: 'warn',
      ...env,
      DATA_DIR: dataDir,
    }),
  ]);
  return {
    browser,
    server,
    backend,
    dataDir,
    url: (p = '/') => `${server.url}${p}`,
    open: (options) => openPage(browser, options),
    close: async () => {
      // Disconnects this file, closing its contexts; the browser serves the other files on.
      await browser.close();
      server.child.kill('SIGTERM');
      await server.exited;
      await backend.close();
    },
  };
}

/**
 * The site storing signups itself (no BACKEND_URL) at an address known before it starts: SITE_URL
 * is its own origin, so the links it mails lead back to it and its forms post same-site.
 */
export async function startSiteOfItsOwn(env: Record<string, string> = {}): Promise<Site> {
  const port = await freePort();
  return startSite({
    BACKEND_URL: '',
    PORT: String(port),
    SITE_URL: `http://127.0.0.1:${port}`,
    ...env,
  });
}

/**
 * Parsed .eml files by path, time and size: the site writes each whole (a temporary name, then
 * renamed), and a queue id freed by an erasure can name a new one.
 */
const parsedMail = new Map<string, Promise<ParsedMail>>();

/**
 * The mail the site wrote to `to` so far (without SMTP_URL: DATA_DIR/mail/<queue id>.eml), oldest
 * first.
 */
export async function mailTo(site: Pick<Site, 'dataDir'>, to: string): Promise<ParsedMail[]> {
  const dir = path.join(site.dataDir, 'mail');
  const files = fs.existsSync(dir)
    ? fs.readdirSync(dir).filter((name) => name.endsWith('.eml'))
    : [];
  files.sort((a, b) => parseInt(a, 10) - parseInt(b, 10));
  const mails: ParsedMail[] = [];
  for (const name of files) {
    const file = path.join(dir, name);
    let mail: ParsedMail;
    try {
      const { mtimeMs, size } = fs.statSync(file);
      const key = `${file}:${mtimeMs}:${size}`;
      if (!parsedMail.has(key)) parsedMail.set(key, simpleParser(fs.readFileSync(file)));
      mail = await parsedMail.get(key)!;
    } catch {
      continue; // erased meanwhile (leaving erases an address's mail)
    }
    const recipients = [mail.to ?? []]
      .flat()
      .flatMap((address) => address.value.map((mailbox) => mailbox.address));
    if (recipients.includes(to)) mails.push(mail);
  }
  return mails;
}

/**
 * The `count`th mail to `to`, once the site has written it: its subject, its text, and its links to
 * the address pages: one to /confirm in the text, and its List-Unsubscribe to /leave.
 */
export async function mailedTo(site: Pick<Site, 'dataDir'>, to: string, count = 1) {
  let mails: ParsedMail[] = [];
  await until(
    `mail number ${count} to ${to}`,
    async () => (mails = await mailTo(site, to)).length >= count,
    10_000,
  );
  const mail = mails[count - 1];
  const list = mail.headers.get('list') as { unsubscribe?: { url?: string } } | undefined;
  const text = mail.text ?? '';
  return {
    subject: mail.subject,
    text,
    confirmLink: /\S+\/confirm\?token=[\w-]+/.exec(text)?.[0],
    leaveLink: list?.unsubscribe?.url,
  };
}

/** Waits until React has hydrated (openPage's probe saw its first commit). */
export async function hydrated(page: Page): Promise<void> {
  await page.waitForFunction(() => (window as { __hydrated?: boolean }).__hydrated === true);
}

/** Whether React has hydrated yet. */
export async function isHydrated(page: Page): Promise<boolean> {
  return page.evaluate(() => (window as { __hydrated?: boolean }).__hydrated === true);
}

/**
 * Whether the menu button tells assistive technology that its dropdown is open: the expanded state
 * in Chromium's own accessibility tree, which a popover's invoker gets from the browser, with or
 * without the page's script (there is no aria-expanded attribute to read).
 */
export async function menuExpanded(page: Page): Promise<boolean | undefined> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { nodes } = await cdp.send('Accessibility.getFullAXTree');
    const button = nodes.find(
      (node) => node.role?.value === 'button' && node.name?.value === 'Menu',
    );
    return button?.properties?.find((property) => property.name === 'expanded')?.value.value as
      boolean | undefined;
  } finally {
    await cdp.detach();
  }
}

/** With SCREENSHOTS=1, the window as it stands, as test-artifacts/screenshots/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (!SCREENSHOTS) return;
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: false });
}

/**
 * The page's state as a phone and a desktop lay it out: the window is set to each width in turn
 * (CSS decides the layout here; no script reads the width), then back to where it was. At each,
 * nothing is wider than the window and the `shown` elements are visible; with SCREENSHOTS=1 it is
 * photographed as `<phone|desktop>-<name>.png`. So a flow run at 375 px checks its states' layout
 * at 1280 px too.
 */
export async function atBothWidths(page: Page, name: string, shown: Locator[] = []): Promise<void> {
  const opened = page.viewportSize();
  for (const { name: device, width, height } of VIEWPORTS) {
    await page.setViewportSize({ width, height });
    const visible = await Promise.all(shown.map((locator) => locator.isVisible()));
    const overflow = Math.max(0, (await scrollWidth(page)) - width);
    expect({ width, overflow, visible }).toEqual({
      width,
      overflow: 0,
      visible: shown.map(() => true),
    });
    await screenshot(page, `${device}-${name}`);
  }
  if (opened) await page.setViewportSize(opened);
}

/** How wide the page is laid out: the window's width unless something overflows it. */
function scrollWidth(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth);
}

/** Problems that are not bugs: the 4xx/5xx answers a test provoked on purpose. */
export function unexpected(problems: string[], allowedStatuses: number[] = []): string[] {
  return problems.filter(
    (p) => !allowedStatuses.some((status) => p.includes(`status of ${status}`)),
  );
}
