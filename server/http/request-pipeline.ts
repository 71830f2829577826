// The request pipeline: every request passes the same short preamble, written once and in this
// order: a request id, the client (TRUST_PROXY), the access-log line, and the fixed security
// headers. An answer kept in memory (a prerendered page, a static file, /healthz) is sent from
// here with those headers already in its own (http/kept-answers.ts,
// docs/decisions/0032-answers-kept-in-memory.md); every other request goes on to the site's router
// (Express, server/app.ts). A route tells the access log and the metrics which kind of route it is
// (`answeredAs`), or it counts as 'app'.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../logger';
import { NO_METRICS, type Metrics, type RouteKind } from '../metrics';
import { logWhenDone, type LoggedRequest } from './access-log';
import { clientOf, untrustedProxyWatch, type Client, type TrustProxy } from './client';
import type { HeaderList } from './security-headers';

export interface RequestContext extends LoggedRequest {
  client: Client;
}

const CONTEXT = Symbol('orgnote.request');

/** What the preamble worked out for this request (Express's req is the same object). */
export function contextOf(req: IncomingMessage): RequestContext {
  return (req as IncomingMessage & { [CONTEXT]: RequestContext })[CONTEXT];
}

type NodeHandler = (req: IncomingMessage, res: ServerResponse, context: RequestContext) => void;

/**
 * Express middleware for a handler written on node:http: it answers the requests `matches`
 * accepts, counted as `kind` in the access log and the metrics, and passes the rest on.
 */
export function answeredAs(
  kind: RouteKind,
  matches: (req: IncomingMessage) => boolean,
  handle: NodeHandler,
) {
  return (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    if (!matches(req)) return next();
    const context = contextOf(req);
    context.kind = kind;
    handle(req, res, context);
  };
}

/** Request ids: unique per process start, cheap per request (a counter, not a UUID each time). */
const idPrefix = randomUUID().slice(0, 8);
let requestCount = 0;

interface PipelineOptions {
  trust: TrustProxy;
  /** Counts each request when the access log writes its line, and those an untrusted proxy sent. */
  metrics?: Pick<Metrics, 'request' | 'untrustedProxy'>;
  /** Set on every answer; a page replaces only its Content-Security-Policy. */
  securityHeaders: HeaderList;
  logger: Logger;
  /**
   * Answers kept in memory, tried in order before the router for a GET or HEAD: each answers its
   * requests whole, security headers included, and returns true, or returns false and touches
   * nothing.
   */
  fromMemory?: ReadonlyArray<FastPath>;
  /** The site's router: answers every request after the preamble. */
  router: (req: IncomingMessage, res: ServerResponse) => void;
}

/** An answer kept in memory (http/kept-answers.ts): true when it answered the request. */
export type FastPath = (
  req: IncomingMessage,
  res: ServerResponse,
  context: RequestContext,
) => boolean;

export function requestPipeline({
  trust,
  securityHeaders,
  logger,
  metrics,
  fromMemory = [],
  router,
}: PipelineOptions) {
  const watchProxy = untrustedProxyWatch(trust, logger, metrics ?? NO_METRICS);
  return function site(req: IncomingMessage, res: ServerResponse): void {
    const context: RequestContext = {
      id: `${idPrefix}-${++requestCount}`,
      kind: 'app',
      startedAt: Date.now(),
      client: clientOf(req, trust),
    };
    (req as IncomingMessage & { [CONTEXT]: RequestContext })[CONTEXT] = context;
    watchProxy(req);
    logWhenDone(logger, req, res, context, metrics);
    if (req.method === 'GET' || req.method === 'HEAD')
      for (const answer of fromMemory) if (answer(req, res, context)) return;
    res.setHeader('X-Request-Id', context.id);
    for (const [name, value] of securityHeaders) res.setHeader(name, value);
    router(req, res);
  };
}
