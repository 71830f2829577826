// Per-client-IP limit on form submissions (the API's POSTs and the native form): floods get 429
// with Retry-After; pages and assets are never limited. The address honours TRUST_PROXY (via the
// front door's client), so behind a trusted proxy each visitor is counted, not the proxy. Each
// door writes the 429 its own way (JSON for the API, a page for the form), so this only raises it.
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { loggedPath } from './access-log';
import type { Middleware } from './body';
import { HttpError } from './errors';
import { contextOf } from './front-door';

const RATE_LIMIT_WINDOW_MS = 60_000;

const RATE_LIMITED = 'Too many submissions; please try again in a minute';

export function signupRateLimit(config: Pick<Config, 'signupRateLimit'>, logger: Logger): Middleware {
  if (config.signupRateLimit === 0) return (_req, _res, next) => next();
  const limiter = rateLimit({
    windowMs: RATE_LIMIT_WINDOW_MS,
    limit: config.signupRateLimit,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    logger,
    // IPv6 clients are counted per /56, as the library's own default does.
    keyGenerator: (req) => ipKeyGenerator(contextOf(req).client.ip),
    handler: (req, _res, next) => {
      logger.warn({ event: 'rate-limited', path: loggedPath(req.url) }, 'too many form submissions');
      next(new HttpError(429, RATE_LIMITED));
    },
  });
  return limiter as unknown as Middleware;
}
