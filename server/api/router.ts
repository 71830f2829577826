// /api/*: path guard → body → either the embedded store (no BACKEND_URL) or the backend proxy.
// Mounted before any body parser, so the raw request reaches this router untouched.
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { Config } from '../config';
import type { Logger } from '../logger';
import type { Services } from '../services';
import { readApiBody } from './body';
import { embeddedApi } from './embedded';
import { ApiError, sendApiError } from './errors';
import { proxyApi } from './proxy';
import { isSafeApiPath } from './safe-path';

export function apiRouter(
  config: Pick<Config, 'backendUrl' | 'upstreamTimeoutMs'>,
  services: Pick<Services, 'waitlist' | 'outbox'>,
  logger: Logger,
): Router {
  const router = express.Router();

  router.use((req, _res, next) => {
    next(isSafeApiPath(req.originalUrl.split('?')[0]) ? undefined : new ApiError(400, 'Invalid API path'));
  });

  router.use(readApiBody);

  const { backendUrl } = config;
  router.use(
    backendUrl
      ? proxyApi({ ...config, backendUrl }, services.outbox, logger)
      : embeddedApi(services.waitlist, logger),
  );

  // Every /api error is JSON; details stay in the log.
  router.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (err instanceof ApiError) return sendApiError(res, err.status, err.message);
    logger.error({ err }, 'api error');
    sendApiError(res, 500, 'Internal error');
  });

  return router;
}
