// /api/*: path guard → body → the backend (proxy). Mounted before any body parser, so the raw
// request reaches this router untouched.
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { readApiBody } from './body';
import { ApiError, sendApiError } from './errors';
import { callBackend, ClientGoneError, sendUpstreamAnswer, UpstreamTimeoutError } from './forward';
import { isSafeApiPath, upstreamUrl } from './safe-path';

function rawPathOf(req: Request): string {
  return req.originalUrl.split('?')[0];
}

export function apiRouter(config: Pick<Config, 'backendUrl' | 'upstreamTimeoutMs'>, logger: Logger): Router {
  const router = express.Router();

  router.use((req, _res, next) => {
    next(isSafeApiPath(rawPathOf(req)) ? undefined : new ApiError(400, 'Invalid API path'));
  });

  router.use((_req, _res, next) => {
    next(config.backendUrl ? undefined : new ApiError(503, 'No backend configured'));
  });

  router.use(readApiBody);

  router.use(async (req, res, next) => {
    const target = upstreamUrl(config.backendUrl!, req.originalUrl);
    if (!target) return next(new ApiError(400, 'Invalid API path'));
    try {
      sendUpstreamAnswer(res, await callBackend(req, res, target, config.upstreamTimeoutMs));
    } catch (err) {
      if (err instanceof ClientGoneError) return; // nobody is listening any more
      if (err instanceof UpstreamTimeoutError) {
        logger.warn({ path: target.pathname }, 'backend timed out');
        return next(new ApiError(504, 'The backend did not answer in time'));
      }
      logger.warn({ path: target.pathname, reason: (err as Error).message }, 'backend unreachable');
      next(new ApiError(502, 'The backend is unavailable'));
    }
  });

  // Every /api error is JSON; details stay in the log.
  router.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (err instanceof ApiError) return sendApiError(res, err.status, err.message);
    logger.error({ err }, 'api error');
    sendApiError(res, 500, 'Internal error');
  });

  return router;
}
