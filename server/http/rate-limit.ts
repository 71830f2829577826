// Per-client-IP limit on form submissions (the API's POSTs and the native form): floods get 429
// with Retry-After; pages and assets are never limited. The address honours TRUST_PROXY (via the
// front door's client), so behind a trusted proxy each visitor is counted, not the proxy. Each
// door writes the 429 its own way (JSON for the API, a page for the form), so this only raises it.
// The counts live in the store (store.rate): in PostgreSQL every replica shares them, so the
// limit holds for the whole site, not per replica.
import { ipKeyGenerator, rateLimit, type Store as LimiterStore } from 'express-rate-limit';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { loggedPath } from './access-log';
import type { Middleware } from './body';
import { HttpError } from './errors';
import type { RateCounter } from '../store/types';
import { contextOf } from './front-door';

const RATE_LIMIT_WINDOW_MS = 60_000;

const RATE_LIMITED = 'Too many submissions; please try again in a minute';

/** express-rate-limit's store interface over the store's counters. */
function countersIn(counter: RateCounter): LimiterStore {
  return {
    async increment(key) {
      const { count, resetAt } = await counter.hit(key, RATE_LIMIT_WINDOW_MS);
      return { totalHits: count, resetTime: new Date(resetAt) };
    },
    // A refused request is not given back, and the operator has no use for resetting one client.
    async decrement() {},
    async resetKey() {},
  };
}

export function signupRateLimit(config: Pick<Config, 'signupRateLimit'>, logger: Logger, counter: RateCounter): Middleware {
  if (config.signupRateLimit === 0) return (_req, _res, next) => next();
  const limiter = rateLimit({
    store: countersIn(counter),
    // Counters unreachable (the database away): let the request through; storing the signup
    // then fails the same way and answers 503, rather than the limit turning into an outage.
    passOnStoreError: true,
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
