// The request pipeline: every request passes the same short preamble, written once and in this
// order: a request id, the client (TRUST_PROXY), the fixed security headers, the access-log line.
// Then the first handler in the table whose test matches answers it: /api/*, a prerendered page,
// or Express for everything else. A fast handler skips Express after the preamble, never the
// preamble itself.
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

interface RouteHandler {
  kind: RouteKind;
  matches(req: IncomingMessage): boolean;
  handle(req: IncomingMessage, res: ServerResponse, context: RequestContext): void;
}

const CONTEXT = Symbol('orgnote.request');

/** What the preamble worked out for this request (Express's req is the same object). */
export function contextOf(req: IncomingMessage): RequestContext {
  return (req as IncomingMessage & { [CONTEXT]: RequestContext })[CONTEXT];
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
  /** Tried in order; the last one should match everything. */
  handlers: RouteHandler[];
}

export function requestPipeline({
  trust,
  securityHeaders,
  logger,
  metrics,
  handlers,
}: PipelineOptions) {
  const watchProxy = untrustedProxyWatch(trust, logger, metrics ?? NO_METRICS);
  return function site(req: IncomingMessage, res: ServerResponse): void {
    const handler = handlers.find((candidate) => candidate.matches(req))!;
    const context: RequestContext = {
      id: `${idPrefix}-${++requestCount}`,
      kind: handler.kind,
      startedAt: Date.now(),
      client: clientOf(req, trust),
    };
    (req as IncomingMessage & { [CONTEXT]: RequestContext })[CONTEXT] = context;
    watchProxy(req);
    res.setHeader('X-Request-Id', context.id);
    for (const [name, value] of securityHeaders) res.setHeader(name, value);
    logWhenDone(logger, req, res, context, metrics);
    handler.handle(req, res, context);
  };
}
