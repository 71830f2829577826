// Structured JSON logs. Requests are logged by method, path (never the query string, which can
// carry ?email=) and status; headers and bodies are never logged, so no e-mail address or form
// value reaches the log.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import pino, { type DestinationStream, type Logger } from 'pino';
import type { Config } from './config';

export type { Logger };

export function createLogger(config: Pick<Config, 'logLevel'>, destination?: DestinationStream): Logger {
  return pino({ level: config.logLevel, base: undefined }, destination);
}

function pathOnly(url: string | undefined): string {
  const path = (url ?? '').split('?')[0];
  // Long paths are scanner noise; cap them so one request can't flood the log.
  return path.length > 200 ? `${path.slice(0, 200)}…` : path;
}

/** Request ids: unique per process start, cheap per request (a counter, not a UUID each time). */
const idPrefix = randomUUID().slice(0, 8);
let requestCount = 0;

/** One JSON line per finished (or aborted) request; shared by Express and the page cache. */
export function logRequest(logger: Logger, req: IncomingMessage, res: ServerResponse, startedAt: number, extra?: object): void {
  const status = res.statusCode;
  const level = status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
  if (!logger.isLevelEnabled(level)) return;
  logger[level](
    {
      // originalUrl: Express rewrites req.url inside mounted routers
      req: { id: `${idPrefix}-${++requestCount}`, method: req.method, path: pathOnly((req as { originalUrl?: string }).originalUrl ?? req.url) },
      res: { status },
      responseTime: Date.now() - startedAt,
      ...(res.writableFinished ? {} : { aborted: true }),
      ...extra,
    },
    'request completed',
  );
}

/** Logs the request once its answer is finished or abandoned. */
export function logWhenDone(logger: Logger, req: IncomingMessage, res: ServerResponse): void {
  const startedAt = Date.now();
  // The health probe runs every few seconds; logging it drowns real traffic.
  if (req.url !== '/healthz') res.once('close', () => logRequest(logger, req, res, startedAt));
}

/**
 * Express middleware for the request log. Hand-written rather than pino-http: it makes no child
 * logger per request, which was a measurable share of each request's CPU (npm run bench).
 */
export function requestLogger(logger: Logger) {
  return (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    logWhenDone(logger, req, res);
    next();
  };
}
