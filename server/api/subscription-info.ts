// GET /api/subscription-info/{provider}/{externalId}: the subscription-service contract the
// OrgNote backend calls to ask whether an account has an active subscription. It authenticates
// with `Authorization: Token <SUBSCRIPTION_API_TOKEN>`, compared in constant time; the answer comes
// from the subscription-info operation (waitlist/subscription-info.ts). Without a token configured
// the route does not exist (404), so an open site never answers it.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config';
import { HttpError, sendJson } from '../http/errors';
import type { Subscriptions } from '../store/subscriptions';
import { subscriptionInfo } from '../waitlist/subscription-info';
import { NO_STORE } from './activation';
import type { SubscriptionInfoParams } from './routes';

/**
 * Equal-length digests, so neither the token's length nor its first wrong byte shows in the timing.
 */
function sameToken(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(expected));
}

function tokenOf(req: IncomingMessage): string | undefined {
  return /^Token\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
}

export function subscriptionInfoEndpoint(
  subscriptions: Subscriptions,
  config: Pick<Config, 'subscriptionApiToken' | 'spaceLimitBytes'>,
) {
  const expected = config.subscriptionApiToken;
  return async (
    req: IncomingMessage,
    res: ServerResponse,
    { provider, externalId }: SubscriptionInfoParams,
  ): Promise<void> => {
    if (!expected) throw new HttpError(404, 'Not found');
    const token = tokenOf(req);
    if (token === undefined || !sameToken(token, expected)) {
      res.setHeader('WWW-Authenticate', 'Token');
      throw new HttpError(401, 'Missing or invalid token');
    }
    const info = await subscriptionInfo({ subscriptions, config }, { provider, externalId });
    if (info.kind === 'none') throw new HttpError(404, 'No subscription for this account');
    sendJson(res, 200, info.subscription, NO_STORE);
  };
}
