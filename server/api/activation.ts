// POST /api/subscription-activation answered by the site itself when no BACKEND_URL is set
// (docs/product.md §7): checks an activation key issued from the embedded store and activates the
// subscription, bound to the OrgNote account named by externalProvider/externalId when the
// OrgNote backend passes one. 404 for a key that is unknown, revoked or issued for another
// address; 409 when another account holds the subscription.
import type { ServerResponse } from 'node:http';
import { checkActivation } from '../../shared/signup';
import type { Config } from '../config';
import { fieldsOf, type BodyRequest } from '../http/body';
import { HttpError, sendJson } from '../http/errors';
import type { Account, Subscriptions } from '../store/types';

export const INVALID_KEY = 'Invalid activation key';

const CONTROL = /[\u0000-\u001f\u007f]/;

/** An optional single text field, trimmed, at most `max` characters. */
function optionalText(fields: Record<string, unknown>, name: string, max: number): string | undefined {
  const value = fields[name];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw new HttpError(400, `${name} must be a single text value`);
  const text = value.trim();
  if (!text || text.length > max || CONTROL.test(text)) throw new HttpError(400, `${name} is invalid`);
  return text;
}

/** The account fields: all absent, or externalProvider and externalId together (externalEmail optional). */
export function accountOf(fields: Record<string, unknown>): Account | undefined {
  const id = optionalText(fields, 'externalId', 256);
  const provider = optionalText(fields, 'externalProvider', 64);
  const email = optionalText(fields, 'externalEmail', 254);
  if (!id && !provider && !email) return undefined;
  if (!id || !provider) throw new HttpError(400, 'externalId and externalProvider go together');
  if (!/^[\w.-]+$/.test(provider)) throw new HttpError(400, 'externalProvider is invalid');
  // Providers are names like 'github': compared in one letter case, whoever spells them.
  return { provider: provider.toLowerCase(), id, email };
}

/** What the OrgNote backend and the activation call both answer about an active subscription. */
export function subscriptionAnswer(email: string, config: Pick<Config, 'spaceLimitBytes'>) {
  return { email, isActive: true, spaceLimit: config.spaceLimitBytes };
}

export const NO_STORE = { 'Cache-Control': 'no-store' };

export function activationEndpoint(subscriptions: Subscriptions, config: Pick<Config, 'spaceLimitBytes'>) {
  return async (req: BodyRequest, res: ServerResponse): Promise<void> => {
    const fields = fieldsOf(req);
    const checked = checkActivation(fields);
    if (!checked.ok) throw new HttpError(400, checked.error);
    const result = await subscriptions.activate(checked.value.email, checked.value.key, accountOf(fields));
    switch (result.outcome) {
      case 'invalid':
        throw new HttpError(404, INVALID_KEY);
      case 'bound-elsewhere':
        throw new HttpError(409, 'This subscription is already bound to another OrgNote account');
      case 'account-has-one':
        throw new HttpError(409, 'This OrgNote account already has a subscription');
      case 'active':
        return sendJson(res, 200, subscriptionAnswer(result.email, config), NO_STORE);
    }
  };
}
