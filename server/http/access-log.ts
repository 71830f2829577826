// One JSON line per request, written when its answer is finished or abandoned: id, method, path
// (never the query string, which can carry ?email=, nor an /api path's parameters, such as the
// account id of subscription-info), the kind of route that answered, and the status. Headers and
// bodies are never logged, so no address or form value reaches the log. Hand-written rather than
// pino-http: no child logger per request (it showed in npm run bench).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../logger';
import { NO_METRICS, type Metrics, type RouteKind } from '../metrics';

export interface LoggedRequest {
  id: string;
  kind: RouteKind;
  startedAt: number;
}

/**
 * Past its first segment, an /api path carries parameters (subscription-info's provider and a
 * person's account id), whatever spelling reached us: the log keeps `/api/<route>/…`.
 */
const API_PARAMETERS = /^(\/api\/+[^/]+)\/.+/;

/** The path as every log line names it: no query string, no API parameters, capped. */
export function loggedPath(url: string | undefined): string {
  let path = (url ?? '').split('?')[0];
  if (path.startsWith('/api/')) path = path.replace(API_PARAMETERS, '$1/…');
  // Long paths are scanner noise; cap them so one request can't flood the log.
  return path.length > 200 ? `${path.slice(0, 200)}…` : path;
}

/** The health probes run every few seconds; logging or counting them would drown real traffic. */
const UNLOGGED = new Set(['/healthz', '/readyz']);

/** The access-log line, and the request's count and latency in the metrics (one clock for both). */
export function logWhenDone(
  logger: Logger,
  req: IncomingMessage,
  res: ServerResponse,
  request: LoggedRequest,
  metrics: Pick<Metrics, 'request'> = NO_METRICS,
): void {
  // Read now: Express rewrites req.url inside mounted routers.
  const path = loggedPath(req.url);
  if (UNLOGGED.has(path)) return;
  res.once('close', () => {
    const status = res.statusCode;
    const ms = Date.now() - request.startedAt;
    metrics.request(request.kind, status, ms / 1000);
    const level = status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
    if (!logger.isLevelEnabled(level)) return;
    logger[level](
      {
        req: { id: request.id, method: req.method, path, kind: request.kind },
        res: { status },
        responseTime: ms,
        ...(res.writableFinished ? {} : { aborted: true }),
      },
      'request completed',
    );
  });
}
