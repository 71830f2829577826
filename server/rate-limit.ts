// Per-client-IP limit on form submissions (the API's two POSTs and the native form): bots and
// floods get 429 with Retry-After; pages and assets are never limited. The address honours
// TRUST_PROXY, so behind a trusted proxy each visitor is counted, not the proxy. Plain
// middleware: the API uses it outside Express, the native form inside.
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';
import type { Middleware } from './api/http';
import type { Config } from './config';
import { sendFormError } from './form-error-page';
import { clientAddress, type TrustProxy } from './forwarded';
import type { Logger } from './logger';

const RATE_LIMIT_WINDOW_MS = 60_000;

export function signupRateLimit(config: Pick<Config, 'signupRateLimit'>, trust: TrustProxy, logger: Logger): Middleware {
  if (config.signupRateLimit === 0) return (_req, _res, next) => next();
  const limiter = rateLimit({
    windowMs: RATE_LIMIT_WINDOW_MS,
    limit: config.signupRateLimit,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    logger,
    // IPv6 clients are counted per /56, as the library's own default does.
    keyGenerator: (req) => ipKeyGenerator(clientAddress(req, trust)),
    handler: (req, res) => {
      logger.warn({ event: 'rate-limited', path: (req.url ?? '').split('?')[0] }, 'too many form submissions');
      // JSON for the API and scripts; a page for a browser that posted the no-JavaScript form.
      sendFormError(req, res, 429, 'Too many submissions; please try again in a minute');
    },
  });
  return limiter as unknown as Middleware;
}
