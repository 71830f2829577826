// Per-client-IP limit on form submissions (the API's POSTs and the native form): floods get 429
// with Retry-After; pages and assets are never limited. The address honours TRUST_PROXY (via the
// request pipeline's client), so behind a trusted proxy each visitor is counted, not the proxy.
// Each handler writes the 429 its own way (JSON for the API, a page for the form), so this only
// raises it. The counts live in the store (store.rate): in PostgreSQL every replica shares them, so
// the limit holds for the whole site, not per replica.
import { ipKeyGenerator, rateLimit, type Store as LimiterStore } from 'express-rate-limit';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { loggedPath } from './access-log';
import type { Middleware } from './body';
import { HttpError } from './errors';
import { createMemoryRateCounter } from '../store/memory-rate';
import type { RateCounter } from '../store/types';
import { contextOf } from './request-pipeline';

const RATE_LIMIT_WINDOW_MS = 60_000;

const RATE_LIMITED = 'Too many submissions; please try again in a minute';

/**
 * How long a count may take before this replica counts alone: a small share of a request's time.
 */
const COUNT_BUDGET_MS = 500;

/**
 * express-rate-limit's store interface over the store's counters. When they cannot be reached in
 * time (the database away or silent), this replica counts in memory instead: a limit per replica
 * is better than none, and the request does not wait out the database's timeout here as well.
 */
function countersIn(counter: RateCounter, logger: Logger): LimiterStore {
  const local = createMemoryRateCounter();
  let counting: 'shared' | 'local' = 'shared';
  const switchTo = (to: typeof counting) => {
    if (counting === to) return;
    counting = to;
    logger.warn(
      { counting: to },
      to === 'local'
        ? 'rate limit counts per replica: the store did not answer'
        : 'rate limit counts in the store again',
    );
  };
  return {
    async increment(key) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error('the rate counters did not answer in time')),
          COUNT_BUDGET_MS,
        );
      });
      let hit: { count: number; resetAt: number };
      try {
        hit = await Promise.race([counter.hit(key, RATE_LIMIT_WINDOW_MS), late]);
        switchTo('shared');
      } catch {
        switchTo('local');
        hit = await local.hit(key, RATE_LIMIT_WINDOW_MS);
      } finally {
        clearTimeout(timer);
      }
      return { totalHits: hit.count, resetTime: new Date(hit.resetAt) };
    },
    // A refused request is not given back, and the operator has no use for resetting one client.
    async decrement() {},
    async resetKey() {},
  };
}

export function signupRateLimit(
  config: Pick<Config, 'signupRateLimit'>,
  logger: Logger,
  counter: RateCounter,
): Middleware {
  if (config.signupRateLimit === 0) return (_req, _res, next) => next();
  const limiter = rateLimit({
    store: countersIn(counter, logger),
    windowMs: RATE_LIMIT_WINDOW_MS,
    limit: config.signupRateLimit,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    logger,
    // IPv6 clients are counted per /56, as the library's own default does.
    keyGenerator: (req) => ipKeyGenerator(contextOf(req).client.ip),
    handler: (req, _res, next) => {
      logger.warn(
        { event: 'rate-limited', path: loggedPath(req.url) },
        'too many form submissions',
      );
      next(new HttpError(429, RATE_LIMITED, 'rateLimited_'));
    },
  });
  return limiter as unknown as Middleware;
}
