// subscription-info: whether an OrgNote account has an active subscription, as the backend asks
// it. Who may ask is the handler's business (the API checks a token); this is only the answer.
import type { Config } from '../config';
import type { Subscriptions } from '../store/subscriptions';
import { subscriptionAnswer, type SubscriptionAnswer } from './activation';

export interface SubscriptionInfoInput {
  provider: string;
  externalId: string;
}

export type SubscriptionInfoResult =
  { kind: 'active'; subscription: SubscriptionAnswer } | { kind: 'none' };

export async function subscriptionInfo(
  {
    subscriptions,
    config,
  }: { subscriptions: Pick<Subscriptions, 'ofAccount'>; config: Pick<Config, 'spaceLimitBytes'> },
  { provider, externalId }: SubscriptionInfoInput,
): Promise<SubscriptionInfoResult> {
  // Bound in lower case at activation (activation.ts), so asked in lower case too.
  const subscription = await subscriptions.ofAccount(provider.toLowerCase(), externalId);
  return subscription
    ? { kind: 'active', subscription: subscriptionAnswer(subscription.email, config) }
    : { kind: 'none' };
}
