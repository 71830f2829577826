// activate: an activation key checked against the address it was issued for, and the subscription
// made active, bound to the OrgNote account the backend names (externalProvider and externalId)
// when it names one. Refusals carry their field or reason as data; the handler picks the status and
// the message.
import { checkActivation } from '../../shared/form-checks';
import { NOT_ONE_LINE } from '../../shared/validation';
import type { Config } from '../config';
import type { Account, Subscriptions } from '../store/subscriptions';

/**
 * What the OrgNote backend reads about an active subscription, from activation and
 * subscription-info alike.
 */
export interface SubscriptionAnswer {
  email: string;
  isActive: true;
  spaceLimit: number;
}

export function subscriptionAnswer(
  email: string,
  config: Pick<Config, 'spaceLimitBytes'>,
): SubscriptionAnswer {
  return { email, isActive: true, spaceLimit: config.spaceLimitBytes };
}

export interface ActivationDeps {
  subscriptions: Pick<Subscriptions, 'activate'>;
  config: Pick<Config, 'spaceLimitBytes'>;
}

export type ActivationResult =
  | { kind: 'invalid'; field: string; message: string }
  /**
   * Unknown, revoked, or issued for another address: the same answer, so nothing is learnt by
   * guessing.
   */
  | { kind: 'invalid-key' }
  | { kind: 'bound-elsewhere' }
  | { kind: 'account-has-one' }
  | { kind: 'active'; subscription: SubscriptionAnswer };

type AccountCheck =
  { ok: true; account: Account | undefined } | { ok: false; field: string; message: string };

/** An optional single text field, trimmed, at most `max` characters. */
function optionalText(
  fields: Record<string, unknown>,
  name: string,
  max: number,
): { ok: true; text?: string } | { ok: false; field: string; message: string } {
  const value = fields[name];
  if (value === undefined || value === '') return { ok: true };
  if (typeof value !== 'string')
    return { ok: false, field: name, message: `${name} must be a single text value` };
  const text = value.trim();
  if (!text || text.length > max || NOT_ONE_LINE.test(text))
    return { ok: false, field: name, message: `${name} is invalid` };
  return { ok: true, text };
}

/**
 * The account fields: all absent, or externalProvider and externalId together (externalEmail
 * optional).
 */
function accountOf(fields: Record<string, unknown>): AccountCheck {
  const id = optionalText(fields, 'externalId', 256);
  if (!id.ok) return id;
  const provider = optionalText(fields, 'externalProvider', 64);
  if (!provider.ok) return provider;
  const email = optionalText(fields, 'externalEmail', 254);
  if (!email.ok) return email;
  if (!id.text && !provider.text && !email.text) return { ok: true, account: undefined };
  if (!id.text || !provider.text)
    return {
      ok: false,
      field: id.text ? 'externalProvider' : 'externalId',
      message: 'externalId and externalProvider go together',
    };
  if (!/^[\w.-]+$/.test(provider.text))
    return { ok: false, field: 'externalProvider', message: 'externalProvider is invalid' };
  // Providers are names like 'github': compared in one letter case, whoever spells them.
  return {
    ok: true,
    account: { provider: provider.text.toLowerCase(), id: id.text, email: email.text },
  };
}

/** `fields` as the form or JSON body arrived: email, key and the optional account. */
export async function activate(
  { subscriptions, config }: ActivationDeps,
  fields: Record<string, unknown>,
): Promise<ActivationResult> {
  const checked = checkActivation(fields);
  if (!checked.ok) return { kind: 'invalid', field: checked.field, message: checked.error };
  const account = accountOf(fields);
  if (!account.ok) return { kind: 'invalid', field: account.field, message: account.message };
  const result = await subscriptions.activate(
    checked.value.email,
    checked.value.key,
    account.account,
  );
  switch (result.outcome) {
    case 'invalid':
      return { kind: 'invalid-key' };
    case 'bound-elsewhere':
    case 'account-has-one':
      return { kind: result.outcome };
    case 'active':
      return { kind: 'active', subscription: subscriptionAnswer(result.email, config) };
  }
}
