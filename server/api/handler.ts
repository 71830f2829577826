// /api/*, answered on plain node:http rather than through Express: the API is a few fixed routes
// of small JSON, and Express's router, request getters and per-request helmet run were most of
// the proxy's own cost (docs/decisions/0009-api-without-express.md; npm run bench).
// In order: security headers → request log → path guard → rate limit (the two form POSTs) →
// body → signups (both modes) → the embedded store (no BACKEND_URL) or the backend proxy → JSON errors.
import type { ServerResponse } from 'node:http';
import type { Config } from '../config';
import type { TrustProxy } from '../forwarded';
import { logWhenDone, type Logger } from '../logger';
import type { FixedHeaders } from '../security';
import type { DeliverSignup } from '../signups';
import type { Waitlist } from '../store/waitlist';
import { readApiBody } from './body';
import { embeddedApi } from './embedded';
import { ApiError, sendApiError } from './errors';
import type { ApiRequest, Middleware } from './http';
import { proxyApi } from './proxy';
import { routeOf } from './routes';
import { decodeApiPath } from './safe-path';
import { subscriptionsHandler } from './subscriptions';

export interface ApiDeps {
  config: Pick<Config, 'backendUrl' | 'upstreamTimeoutMs'>;
  waitlist: Waitlist;
  deliverSignup: DeliverSignup;
  /** The per-IP budget for form submissions, shared with the native form. */
  limitSubmissions: Middleware;
  trust: TrustProxy;
  logger: Logger;
  /** Security headers for answers that run no script (fixedHeaders), shared with Express. */
  securityHeaders: FixedHeaders;
}

const noLimit: Middleware = (_req, _res, next) => next();

export function createApiHandler({ config, waitlist, deliverSignup, limitSubmissions, trust, logger, securityHeaders }: ApiDeps) {
  const subscribe = subscriptionsHandler(deliverSignup, logger);
  const { backendUrl } = config;
  const rest = backendUrl ? proxyApi({ ...config, backendUrl }, trust, logger) : embeddedApi(waitlist);

  // Every /api error is JSON; details stay in the log.
  const failed = (res: ServerResponse, err: unknown): void => {
    if (err instanceof ApiError) return sendApiError(res, err.status, err.message);
    logger.error({ err }, 'api error');
    sendApiError(res, 500, 'Internal error');
  };

  return function api(req: ApiRequest, res: ServerResponse): void {
    for (const [name, value] of securityHeaders) res.setHeader(name, value);
    logWhenDone(logger, req, res);
    const path = decodeApiPath(req.url!.split('?')[0]);
    if (path === null) return failed(res, new ApiError(400, 'Invalid API path'));
    const route = routeOf(path);
    const isFormPost = req.method === 'POST' && route !== undefined;
    // Counted before the body is even read, so a flood costs little.
    (isFormPost ? limitSubmissions : noLimit)(req, res, (limitError) => {
      if (limitError) return failed(res, limitError);
      readApiBody(req, res, (bodyError) => {
        if (bodyError) return failed(res, bodyError);
        const answer = isFormPost && route === 'subscriptions' ? subscribe(req, res) : rest(req, res, route);
        answer.catch((err: unknown) => failed(res, err));
      });
    });
  };
}
