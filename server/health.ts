// The probes. GET /healthz is liveness, for the Docker HEALTHCHECK: the process answers (with
// the outbox depth, so an operator sees signups waiting for the backend, and the version it
// runs). What it reports is read in the background, at most once a second, and kept as an answer
// in memory (http/kept-answers.ts): a probe, or a flood of them, never reaches the store, and a
// store that is slow or gone cannot slow it. GET /readyz is readiness, for the reverse proxy or
// orchestrator: 200 only while the store answers with its schema current, 503 otherwise, so a
// replica whose database is unreachable is taken out of rotation instead of answering signups
// with 503s; the store is asked at most once a second, however many ask.
import type { IncomingMessage, ServerResponse } from 'node:http';
import etag from 'etag';
import type { Request, Response } from 'express';
import { keptBody, sendKept, urlPath, type KeptAnswer } from './http/kept-answers';
import type { RequestContext } from './http/request-pipeline';
import type { HeaderList } from './http/security-headers';
import type { Outbox } from './store/outbox';
import type { Store } from './store/types';
import { currentBuild } from './version';

/** How often what the probes report is read again. */
export const PROBE_REFRESH_MS = 1_000;
/** A count slower than this is reported as unknown (null) until it answers. */
const DEPTH_TIMEOUT_MS = 250;

/** The outbox depth /healthz reports, read in the background. */
export interface OutboxWatch {
  /** The last depth read: null before the first read, or while the store fails to answer. */
  depth(): number | null;
  /** Reads it again unless it was read less than a second ago (one read at a time). */
  refresh(): Promise<void>;
  /** Reads it every second until the returned function is called (server/index.ts). */
  keepFresh(): () => void;
}

export function watchOutbox(outbox: Pick<Outbox, 'depth'>, now = Date.now): OutboxWatch {
  let depth: number | null = null;
  let readAt = -Infinity;
  let reading: Promise<void> | undefined;

  async function read(): Promise<void> {
    // Liveness must not depend on the database: a count that fails or is slow (PostgreSQL
    // silent) is reported as null, never a probe that times out and restarts the process.
    const late = new Promise<null>((resolve) =>
      setTimeout(resolve, DEPTH_TIMEOUT_MS, null).unref(),
    );
    depth = await Promise.race([outbox.depth().catch(() => null), late]);
    readAt = now();
  }

  const refresh = (): Promise<void> => {
    if (now() - readAt < PROBE_REFRESH_MS) return Promise.resolve();
    reading ??= read().finally(() => (reading = undefined));
    return reading;
  };
  return {
    depth: () => depth,
    refresh,
    keepFresh() {
      const timer = setInterval(() => void refresh(), PROBE_REFRESH_MS).unref();
      return () => clearInterval(timer);
    },
  };
}

/**
 * GET /healthz, answered from memory: the answer is made again only when the depth changes. A
 * probe also asks for a read when the last is older than a second, so the depth follows the
 * outbox even where nothing keeps it fresh (a test's app).
 */
export function healthProbe(watch: OutboxWatch, securityHeaders: HeaderList) {
  let made: { depth: number | null; answer: KeptAnswer } | undefined;

  function current(): KeptAnswer {
    const depth = watch.depth();
    if (!made || made.depth !== depth) {
      const body = Buffer.from(
        JSON.stringify({ status: 'ok', outbox: depth, version: currentBuild().version }),
      );
      const headers = {
        'Cache-Control': 'no-store',
        'Content-Type': 'application/json; charset=utf-8',
        Vary: 'Accept-Encoding',
      };
      const identity = keptBody(securityHeaders, headers, body, etag(body, { weak: true }));
      made = { depth, answer: { variants: { identity }, ranges: false } };
    }
    return made.answer;
  }

  function send(req: IncomingMessage, res: ServerResponse, { id }: RequestContext): void {
    void watch.refresh();
    sendKept(req, res, id, current());
  }

  return {
    /** The request pipeline's fast path (a GET or HEAD): /healthz; false for the rest. */
    answer(req: IncomingMessage, res: ServerResponse, context: RequestContext): boolean {
      if (urlPath(req.url!) !== '/healthz') return false;
      send(req, res, context);
      return true;
    },
    /** The same answer for Express, which also routes /healthz/ and /HEALTHZ here. */
    send,
  };
}

/**
 * Readiness itself, for /readyz and the store_ready gauge: the store answered within `timeoutMs`.
 */
export async function isReady(store: Pick<Store, 'ping'>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('the store did not answer in time')), timeoutMs);
  });
  try {
    await Promise.race([store.ping(), late]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

export function readinessCheck(store: Pick<Store, 'ping'>, timeoutMs: number, now = Date.now) {
  // The check every request within a second of it shares (and every request while it runs).
  let last: { startedAt: number; ready: Promise<boolean>; done: boolean } | undefined;
  return async (_req: Request, res: Response): Promise<void> => {
    res.setHeader('Cache-Control', 'no-store');
    if (!last || (last.done && now() - last.startedAt >= PROBE_REFRESH_MS)) {
      const check = { startedAt: now(), ready: isReady(store, timeoutMs), done: false };
      void check.ready.then(() => (check.done = true));
      last = check;
    }
    if (await last.ready) res.json({ status: 'ready' });
    else res.status(503).json({ status: 'unavailable' });
  };
}
