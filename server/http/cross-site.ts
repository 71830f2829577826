// Cross-site protection for state-changing requests (the API's POSTs and the native form POST):
// another website must not be able to make a visitor's browser sign addresses up past our per-IP
// limit. Browsers say where a request comes from (Origin, and Sec-Fetch-Site when they send no
// Origin); clients that are not browsers (curl, the OrgNote backend) send neither and pass.
// Checked before the body is read, so a refusal costs nothing and is not charged to the limit.
import type { IncomingMessage } from 'node:http';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { loggedPath } from './access-log';
import type { Middleware } from './body';
import type { Client } from './client';
import { HttpError } from './errors';
import { contextOf } from './request-pipeline';

export const CROSS_SITE_REFUSED = 'Cross-site form submissions are not accepted';

/** Decides for one request; `client.origin` is read only when SITE_URL is unset. */
export type CrossSiteCheck = (req: IncomingMessage, client: Pick<Client, 'origin'>) => boolean;

/**
 * Origins compare in lower case: scheme and host are case-insensitive, and browsers send them
 * lower.
 */
const normal = (origin: string) => origin.toLowerCase();

/** True when the request may go on. */
export function crossSiteCheck(config: Pick<Config, 'siteUrl' | 'allowedOrigins'>): CrossSiteCheck {
  const siteOrigin = config.siteUrl ? normal(new URL(config.siteUrl).origin) : undefined;
  const allowed = new Set(config.allowedOrigins.map(normal));
  return (req, client) => {
    const origin = req.headers.origin;
    if (origin === undefined) return req.headers['sec-fetch-site'] !== 'cross-site';
    // 'null' is what sandboxed frames, file: pages and some redirects send: nobody we know.
    if (origin === 'null') return false;
    const from = normal(origin);
    return from === (siteOrigin ?? normal(client.origin)) || allowed.has(from);
  };
}

/**
 * The check as one step of a handler: GET and HEAD change nothing and pass; a refusal is logged and
 * raised as a 403 that the handler writes its own way (JSON for the API, a page for the form).
 */
export function refuseCrossSite(
  config: Pick<Config, 'siteUrl' | 'allowedOrigins'>,
  logger: Logger,
): Middleware {
  const allow = crossSiteCheck(config);
  return (req, _res, next) => {
    if (req.method === 'GET' || req.method === 'HEAD' || allow(req, contextOf(req).client))
      return next();
    logger.warn(
      { event: 'cross-site-refused', path: loggedPath(req.url) },
      'refused a cross-site request',
    );
    next(new HttpError(403, CROSS_SITE_REFUSED, 'crossSite_'));
  };
}
