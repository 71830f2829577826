// Chromium driven through the DevTools protocol on a pipe (--remote-debugging-pipe), for
// bench:mainthread and bench:pow. Playwright is not used there on purpose: its session on each
// page enables the Runtime domain, and with a V8 inspector session listening, V8 records a
// detailed stack trace for every Error the page constructs, reparsing the whole script for its
// source positions. React DOM constructs five at its top level, so every load paid about 80 ms
// (4× CPU slowdown) that no visitor pays, in both builds. Here a page gets only the Page and
// Emulation domains.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';

interface Message {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { message: string };
  sessionId?: string;
}

export interface CdpPipe {
  /** One command, to the browser or (with sessionId) to an attached target. */
  send<T = Record<string, unknown>>(
    method: string,
    params?: Record<string, unknown>,
    sessionId?: string,
  ): Promise<T>;
  /** The next event of this name. */
  once<T = Record<string, unknown>>(method: string): Promise<T>;
  close(): Promise<void>;
}

/** Starts a headless Chromium of its own (a temporary profile, removed by close()). */
export function launchChromium(executablePath: string, flags: string[]): CdpPipe {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'orgnote-cdp-'));
  const child = spawn(
    executablePath,
    [
      ...flags,
      '--headless',
      '--remote-debugging-pipe',
      `--user-data-dir=${profile}`,
      'about:blank',
    ],
    {
      stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'],
    },
  );
  const toBrowser = child.stdio[3] as Writable;
  const fromBrowser = child.stdio[4] as Readable;
  const pending = new Map<
    number,
    { resolve: (result: never) => void; reject: (err: Error) => void; method: string }
  >();
  const waiting = new Map<string, ((params: never) => void)[]>();
  let nextId = 0;
  let exited: Error | undefined;

  // Messages are JSON separated by NUL bytes; a read may end inside one (or inside a UTF-8
  // character).
  let buffered = Buffer.alloc(0);
  fromBrowser.on('data', (data: Buffer) => {
    buffered = Buffer.concat([buffered, data]);
    for (let end = buffered.indexOf(0); end >= 0; end = buffered.indexOf(0)) {
      const message = JSON.parse(buffered.subarray(0, end).toString('utf8')) as Message;
      buffered = buffered.subarray(end + 1);
      if (message.id !== undefined) {
        const call = pending.get(message.id);
        pending.delete(message.id);
        if (message.error) call?.reject(new Error(`${call.method}: ${message.error.message}`));
        else call?.resolve(message.result as never);
      } else if (message.method) {
        for (const listener of waiting.get(message.method)?.splice(0) ?? [])
          listener(message.params as never);
      }
    }
  });
  child.on('exit', (code, signal) => {
    exited = new Error(`Chromium exited (${signal ?? code})`);
    for (const call of pending.values()) call.reject(exited);
    pending.clear();
  });
  // A failed start (a wrong path) is reported by the first command.
  child.on('error', (err) => {
    exited = err;
  });

  return {
    send(method, params = {}, sessionId) {
      if (exited) return Promise.reject(exited);
      const id = ++nextId;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve: resolve, reject, method });
        toBrowser.write(`${JSON.stringify({ id, method, params, sessionId })}\0`);
      });
    },
    once(method) {
      return new Promise((resolve) => {
        const listeners = waiting.get(method) ?? [];
        listeners.push(resolve);
        waiting.set(method, listeners);
      });
    },
    async close() {
      if (!exited) {
        const gone = new Promise((resolve) => child.once('exit', resolve));
        await this.send('Browser.close').catch(() => {});
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await gone;
        clearTimeout(timer);
      }
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** One command to a page (the target a session is attached to). */
export type PageSend = (method: string, params?: Record<string, unknown>) => Promise<unknown>;

export interface PhonePage {
  sessionId: string;
  send: PageSend;
  /** Disposes of the page's browser context. */
  close(): Promise<void>;
}

/**
 * A blank page in a fresh browser context (no cache), its Page domain enabled, laid out as
 * Lighthouse's phone (412 × 823 CSS pixels at 1.75×).
 */
export async function openPhonePage(browser: CdpPipe): Promise<PhonePage> {
  const { browserContextId } = await browser.send<{ browserContextId: string }>(
    'Target.createBrowserContext',
    { disposeOnDetach: true },
  );
  const close = () =>
    browser.send('Target.disposeBrowserContext', { browserContextId }).then(
      () => undefined,
      () => undefined,
    );
  try {
    const { targetId } = await browser.send<{ targetId: string }>('Target.createTarget', {
      url: 'about:blank',
      browserContextId,
    });
    const { sessionId } = await browser.send<{ sessionId: string }>('Target.attachToTarget', {
      targetId,
      flatten: true,
    });
    const send: PageSend = (method, params = {}) => browser.send(method, params, sessionId);
    await send('Page.enable');
    await send('Emulation.setDeviceMetricsOverride', {
      width: 412,
      height: 823,
      deviceScaleFactor: 1.75,
      mobile: true,
    });
    return { sessionId, send, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** `promise`, or a rejection naming `what` once `ms` have passed without it settling. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
