// The /api door, on plain node:http rather than Express: a few fixed routes of small JSON, where
// Express's router and request getters were most of the proxy's own cost (docs/decisions/
// 0009-api-without-express.md; npm run bench). After the front door's preamble, in order:
// path guard → cross-site check (anything but GET/HEAD) → rate limit (the form POSTs) → body →
// the signup road, the embedded activation, or the backend proxy. Every error is JSON.
import type { ServerResponse } from 'node:http';
import type { Config } from '../config';
import { readBody, type BodyRequest, type Middleware } from '../http/body';
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
  /** The cross-site check, shared with the native form. */
  refuseCrossSite: Middleware;
  logger: Logger;
}

type Endpoint = (req: BodyRequest, res: ServerResponse, context: RequestContext, route?: ApiRoute) => Promise<void>;

const noLimit: Middleware = (_req, _res, next) => next();

/** Runs connect-style steps one after another; the first error, or the end, goes to `done`. */
function inOrder(steps: Middleware[], req: BodyRequest, res: ServerResponse, done: (err?: unknown) => void): void {
  const from = (index: number) => (err?: unknown) => (err || index === steps.length ? done(err) : steps[index](req, res, from(index + 1)));
  from(0)();
}

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

export function apiDoor({ config, signups, submitSignup, limitSubmissions, refuseCrossSite, logger }: ApiDeps) {
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
    // Refused and counted before the body is even read, so a flood costs little.
    const limit = req.method === 'POST' && route !== undefined ? limitSubmissions : noLimit;
    inOrder([refuseCrossSite, limit, readBody], req, res, (err) => {
      if (err) return failed(res, err);
      endpoint(req, res, context, route).catch((error: unknown) => failed(res, error));
    });
  };
}
