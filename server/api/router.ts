// /api/*: path guard → body → waitlist signups (both modes) → the embedded store (no BACKEND_URL)
// or the backend proxy. Mounted before any body parser, so the raw request reaches it untouched.
import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import type { Config } from '../config';
import type { Logger } from '../logger';
import type { Services } from '../services';
import type { DeliverSignup } from '../signups';
import { readApiBody } from './body';
import { embeddedApi } from './embedded';
import { ApiError, sendApiError } from './errors';
import { proxyApi } from './proxy';
import { isSafeApiPath } from './safe-path';
import { subscriptionsHandler } from './subscriptions';

export function apiRouter(
  config: Pick<Config, 'backendUrl' | 'upstreamTimeoutMs'>,
  services: Pick<Services, 'waitlist'>,
  deliverSignup: DeliverSignup,
  limitSubmissions: RequestHandler,
  logger: Logger,
): Router {
  const router = express.Router();

  router.use((req, _res, next) => {
    next(isSafeApiPath(req.originalUrl.split('?')[0]) ? undefined : new ApiError(400, 'Invalid API path'));
  });

  // Counted before the body is even read, so a flood costs little.
  router.post(['/subscriptions', '/subscription-activation'], limitSubmissions);

  router.use(readApiBody);

  router.post('/subscriptions', subscriptionsHandler(deliverSignup, logger));

  const { backendUrl } = config;
  router.use(backendUrl ? proxyApi({ ...config, backendUrl }, logger) : embeddedApi(services.waitlist));

  // Every /api error is JSON; details stay in the log.
  router.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (err instanceof ApiError) return sendApiError(res, err.status, err.message);
    logger.error({ err }, 'api error');
    sendApiError(res, 500, 'Internal error');
  });

  return router;
}
