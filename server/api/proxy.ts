// /api/* relayed to BACKEND_URL. A waitlist submission the backend cannot take (unreachable,
// timed out, 5xx) is kept in the outbox and acknowledged with 202, so no signup is lost; other
// calls report 502/504. Submissions are checked first, so nothing invalid is sent or stored.
import express, { type Request, type Response, type Router } from 'express';
import { checkActivation, checkSignup } from '../../shared/signup';
import type { Config } from '../config';
import type { Logger } from '../logger';
import type { Outbox } from '../store/outbox';
import { INVALID_KEY } from './embedded';
import { ApiError } from './errors';
import { callBackend, ClientGoneError, sendUpstreamAnswer, UpstreamTimeoutError, type UpstreamAnswer } from './forward';
import { upstreamUrl } from './safe-path';
import { fieldsOf, toFieldList } from './submission';

type ProxyConfig = Pick<Config, 'upstreamTimeoutMs'> & { backendUrl: string };

function isPost(req: Request, path: string): boolean {
  return req.method === 'POST' && req.path === path;
}

export function proxyApi(config: ProxyConfig, outbox: Outbox, logger: Logger): Router {
  const router = express.Router();

  const queue = (req: Request, res: Response, reason: string) => {
    const id = outbox.enqueue(req.originalUrl, toFieldList(fieldsOf(req)));
    logger.warn({ outboxId: id, reason }, 'backend could not take a signup; queued');
    res.status(202).json({ queued: true });
  };

  router.use(async (req, res) => {
    const target = upstreamUrl(config.backendUrl, req.originalUrl);
    if (!target) throw new ApiError(400, 'Invalid API path');

    const isSignup = isPost(req, '/subscriptions');
    if (isSignup) {
      const checked = checkSignup(fieldsOf(req));
      if (!checked.ok) throw new ApiError(400, checked.error);
    } else if (isPost(req, '/subscription-activation') && !checkActivation(fieldsOf(req)).ok) {
      throw new ApiError(400, INVALID_KEY);
    }

    let answer: UpstreamAnswer;
    try {
      answer = await callBackend(req, res, target, config.upstreamTimeoutMs);
    } catch (err) {
      if (err instanceof ClientGoneError) return; // nobody is listening any more
      const timedOut = err instanceof UpstreamTimeoutError;
      if (isSignup) return queue(req, res, timedOut ? 'timeout' : 'unreachable');
      logger.warn({ path: target.pathname, reason: (err as Error).message }, timedOut ? 'backend timed out' : 'backend unreachable');
      throw timedOut ? new ApiError(504, 'The backend did not answer in time') : new ApiError(502, 'The backend is unavailable');
    }
    if (isSignup && answer.status >= 500) return queue(req, res, `status ${answer.status}`);
    sendUpstreamAnswer(res, answer);
  });

  return router;
}
