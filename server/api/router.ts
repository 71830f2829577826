// The /api router, a node:http handler mounted first in Express (server/app.ts): a few fixed
// routes of small JSON, matched by hand so no spelling of a form POST slips past the checks
// (routes.ts). After the request pipeline's preamble, in order:
// path guard → cross-site check (anything but GET/HEAD) → rate limit (signups; activations only
// on their way to a backend) → body → the signup operation, the embedded activation and
// subscription-info, or the backend proxy. Every error is JSON.
import type { ServerResponse } from 'node:http';
import type { Config } from '../config';
import { readBody, type BodyRequest, type Middleware } from '../http/body';
import { HttpError, sendJsonError, statusAndMessage } from '../http/errors';
import type { RequestContext } from '../http/request-pipeline';
import { decodeApiPath } from '../http/safe-path';
import type { ProofOfWork } from '../guard/proof-of-work';
import type { Logger } from '../logger';
import { signupEndpoint } from './subscriptions';
import type { Subscriptions } from '../store/subscriptions';
import type { SubmitSignup } from '../waitlist/signup';
import { activationEndpoint } from './activation';
import { challengeEndpoint } from './challenge';
import { proxyEndpoint } from './proxy';
import {
  isRateLimited,
  routeOf,
  subscriptionInfoParams,
  type ApiRoute,
  type SubscriptionInfoParams,
} from './routes';
import { subscriptionInfoEndpoint } from './subscription-info';

interface ApiDeps {
  config: Pick<
    Config,
    | 'backendUrl'
    | 'backendTimeoutMs'
    | 'subscriptionApiToken'
    | 'spaceLimitBytes'
    | 'allowedOrigins'
  >;
  subscriptions: Subscriptions;
  submitSignup: SubmitSignup;
  /** The per-IP budget for form submissions, shared with the native form. */
  limitSubmissions: Middleware;
  /** The cross-site check, shared with the native form. */
  refuseCrossSite: Middleware;
  logger: Logger;
  /** With PROOF_OF_WORK on: the challenges GET /api/challenge hands out. */
  proof?: ProofOfWork;
}

/** `info` carries subscription-info's parameters when that is the route. */
type Endpoint = (
  req: BodyRequest,
  res: ServerResponse,
  context: RequestContext,
  route: ApiRoute | undefined,
  info?: SubscriptionInfoParams,
) => Promise<void>;

const noLimit: Middleware = (_req, _res, next) => next();

/** Runs connect-style steps one after another; the first error, or the end, goes to `done`. */
function inOrder(
  steps: Middleware[],
  req: BodyRequest,
  res: ServerResponse,
  done: (err?: unknown) => void,
): void {
  const from = (index: number) => (err?: unknown) =>
    err || index === steps.length ? done(err) : steps[index](req, res, from(index + 1));
  from(0)();
}

function allowOnly(methods: string[], req: BodyRequest, res: ServerResponse): void {
  if (methods.includes(req.method!)) return;
  res.setHeader('Allow', methods.join(', '));
  throw new HttpError(405, 'Method not allowed');
}

/**
 * Without BACKEND_URL: the two form routes of docs/product.md §7, subscription-info for the OrgNote
 * backend, and clear JSON for anything else.
 */
function embeddedEndpoints(
  deps: Pick<ApiDeps, 'subscriptions' | 'config'>,
  signup: ReturnType<typeof signupEndpoint>,
  challenge: ReturnType<typeof challengeEndpoint>,
): Endpoint {
  const activate = activationEndpoint(deps.subscriptions, deps.config);
  const info = subscriptionInfoEndpoint(deps.subscriptions, deps.config);
  return async (req, res, context, route, infoParams) => {
    switch (route) {
      case undefined:
        throw new HttpError(404, 'Not found');
      case 'subscription-info':
        // Without a token the route does not exist, whatever the method.
        if (deps.config.subscriptionApiToken) allowOnly(['GET', 'HEAD'], req, res);
        return info(req, res, infoParams!);
      case 'subscriptions':
        allowOnly(['POST'], req, res);
        return signup(req, res, context);
      case 'activation':
        allowOnly(['POST'], req, res);
        return activate(req, res);
      case 'challenge':
        return challenge(req, res);
    }
  };
}

export function apiHandler({
  config,
  subscriptions,
  submitSignup,
  limitSubmissions,
  refuseCrossSite,
  logger,
  proof,
}: ApiDeps) {
  const signup = signupEndpoint(submitSignup);
  const challenge = challengeEndpoint(proof, config);
  const { backendUrl } = config;
  const proxy = backendUrl ? proxyEndpoint({ ...config, backendUrl }, logger) : undefined;
  // With a backend, the site still takes signups (its checks and guard first) and makes the
  // challenges whose solutions it checks.
  const endpoint: Endpoint = proxy
    ? (req, res, context, route) => {
        if (route === 'subscriptions' && req.method === 'POST') return signup(req, res, context);
        if (route === 'challenge') return challenge(req, res);
        return proxy(req, res, context, route);
      }
    : embeddedEndpoints({ subscriptions, config }, signup, challenge);

  const failed = (res: ServerResponse, err: unknown): void => {
    const { status, message, ours, retryAfterSeconds } = statusAndMessage(err);
    if (ours) logger.error({ err }, 'api error');
    if (retryAfterSeconds !== undefined) {
      res.setHeader('Retry-After', String(retryAfterSeconds));
      logger.warn({ reason: (err as Error).name }, 'store unavailable');
    }
    sendJsonError(res, status, message);
  };

  return function api(req: BodyRequest, res: ServerResponse, context: RequestContext): void {
    const rawPath = req.url!.split('?')[0];
    // Embedded only: with a backend, subscription-info is relayed like any path, behind the guard.
    const info = proxy ? undefined : subscriptionInfoParams(rawPath);
    const path = info ? rawPath : decodeApiPath(rawPath);
    if (path === null) return failed(res, new HttpError(400, 'Invalid API path'));
    const route = info ? 'subscription-info' : routeOf(path);
    // Refused and counted before the body is even read, so a flood costs little.
    const limit =
      req.method === 'POST' && isRateLimited(route, proxy !== undefined)
        ? limitSubmissions
        : noLimit;
    inOrder([refuseCrossSite, limit, readBody], req, res, (err) => {
      if (err) return failed(res, err);
      endpoint(req, res, context, route, info).catch((error: unknown) => failed(res, error));
    });
  };
}
