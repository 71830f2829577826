// POST /api/subscription-activation answered by the site itself when no BACKEND_URL is set
// (docs/product.md §7): the handler of the activate operation (waitlist/activation.ts). 400 for a
// malformed field, 404 for a key that is unknown, revoked or issued for another address; 409 when
// another account holds the subscription.
import type { ServerResponse } from 'node:http';
import type { Config } from '../config';
import { fieldsOf, type BodyRequest } from '../http/body';
import { HttpError, sendJson } from '../http/errors';
import type { Subscriptions } from '../store/subscriptions';
import { activate } from '../waitlist/activation';

export const INVALID_KEY = 'Invalid activation key';

export const NO_STORE = { 'Cache-Control': 'no-store' };

export function activationEndpoint(
  subscriptions: Subscriptions,
  config: Pick<Config, 'spaceLimitBytes'>,
) {
  return async (req: BodyRequest, res: ServerResponse): Promise<void> => {
    const result = await activate({ subscriptions, config }, fieldsOf(req));
    switch (result.kind) {
      case 'invalid':
        throw new HttpError(400, result.message);
      case 'invalid-key':
        throw new HttpError(404, INVALID_KEY);
      case 'bound-elsewhere':
        throw new HttpError(409, 'This subscription is already bound to another OrgNote account');
      case 'account-has-one':
        throw new HttpError(409, 'This OrgNote account already has a subscription');
      case 'active':
        return sendJson(res, 200, result.subscription, NO_STORE);
    }
  };
}
