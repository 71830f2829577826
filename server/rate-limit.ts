// Per-client-IP limit on form submissions (the API's two POSTs and the native form): bots and
// floods get 429 with Retry-After; pages and assets are never limited. req.ip honours TRUST_PROXY,
// so behind a trusted proxy each visitor is counted, not the proxy.
import type { RequestHandler } from 'express';
import { rateLimit } from 'express-rate-limit';
import type { Config } from './config';
import { sendFormError } from './form-error-page';
import type { Logger } from './logger';

export const RATE_LIMIT_WINDOW_MS = 60_000;

export function signupRateLimit(config: Pick<Config, 'signupRateLimit'>, logger: Logger): RequestHandler {
  if (config.signupRateLimit === 0) return (_req, _res, next) => next();
  return rateLimit({
    windowMs: RATE_LIMIT_WINDOW_MS,
    limit: config.signupRateLimit,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    logger,
    handler: (req, res) => {
      logger.warn({ event: 'rate-limited', path: req.path }, 'too many form submissions');
      // JSON for the API and scripts; a page for a browser that posted the no-JavaScript form.
      sendFormError(req, res, 429, 'Too many submissions; please try again in a minute');
    },
  });
}
