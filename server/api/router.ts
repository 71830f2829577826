// The /api door, on plain node:http rather than Express: a few fixed routes of small JSON, where
// Express's router and request getters were most of the proxy's own cost (docs/decisions/
// 0009-api-without-express.md; npm run bench). After the front door's preamble, in order:
// path guard → cross-site check (anything but GET/HEAD) → rate limit (the form POSTs) → body →
// the signup road, the embedded activation, or the backend proxy. Every error is JSON.
import type { ServerResponse } from 'node:http';
import type { Config } from '../config';
import { loggedPath } from '../http/access-log';
import { readBody, type BodyRequest, type Middleware } from '../http/body';
import type { CrossSiteCheck } from '../http/cross-site';
import { CROSS_SITE_REFUSED } from '../http/cross-site';
import { HttpError, sendJsonError, statusAndMessage } from '../http/errors';
import type { RequestContext } from '../http/front-door';
import { decodeApiPath } from '../http/safe-path';
import type { Logger } from '../logger';
import { signupEndpoint } from '../signups/api';
import type { SubmitSignup } from '../signups/submit';
import type { Signups } from '../store/signups';
import { activationEndpoint } from './activation';
import { proxyEndpoint } from './proxy';
import { routeOf, type ApiRoute } from './routes';

interface ApiDeps {
  config: Pick<Config, 'backendUrl' | 'backendTimeoutMs'>;
  signups: Signups;
  submitSignup: SubmitSignup;
  /** The per-IP budget for form submissions, shared with the native form. */
  limitSubmissions: Middleware;
  allowCrossSite: CrossSiteCheck;
  logger: Logger;
}

type Endpoint = (req: BodyRequest, res: ServerResponse, context: RequestContext, route?: ApiRoute) => Promise<void>;

const isSafe = (method: string | undefined) => method === 'GET' || method === 'HEAD';

/** Without BACKEND_URL: the two routes of docs/product.md §7, and clear JSON for anything else. */
function embeddedEndpoints(signups: Signups, signup: Endpoint): Endpoint {
  const activate = activationEndpoint(signups);
  return async (req, res, context, route) => {
    if (!route) throw new HttpError(404, 'Not found');
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      throw new HttpError(405, 'Method not allowed');
    }
    return route === 'subscriptions' ? signup(req, res, context) : activate(req, res);
  };
}

export function apiDoor({ config, signups, submitSignup, limitSubmissions, allowCrossSite, logger }: ApiDeps) {
  const signup = signupEndpoint(submitSignup);
  const { backendUrl } = config;
  const proxy = backendUrl ? proxyEndpoint({ ...config, backendUrl }, logger) : undefined;
  const endpoint: Endpoint = proxy
    ? (req, res, context, route) => (route === 'subscriptions' && req.method === 'POST' ? signup(req, res, context) : proxy(req, res, context, route))
    : embeddedEndpoints(signups, signup);

  const failed = (res: ServerResponse, err: unknown): void => {
    const { status, message, ours } = statusAndMessage(err);
    if (ours) logger.error({ err }, 'api error');
    sendJsonError(res, status, message);
  };

  return function api(req: BodyRequest, res: ServerResponse, context: RequestContext): void {
    const path = decodeApiPath(req.url!.split('?')[0]);
    if (path === null) return failed(res, new HttpError(400, 'Invalid API path'));
    const route = routeOf(path);
    if (!isSafe(req.method) && !allowCrossSite(req, context.client)) {
      logger.warn({ event: 'cross-site-refused', path: loggedPath(req.url) }, 'refused a cross-site request');
      return failed(res, new HttpError(403, CROSS_SITE_REFUSED));
    }
    // Counted before the body is even read, so a flood costs little.
    const limit: Middleware = req.method === 'POST' && route !== undefined ? limitSubmissions : (_req, _res, next) => next();
    limit(req, res, (limitError) => {
      if (limitError) return failed(res, limitError);
      readBody(req, res, (bodyError) => {
        if (bodyError) return failed(res, bodyError);
        endpoint(req, res, context, route).catch((err: unknown) => failed(res, err));
      });
    });
  };
}
