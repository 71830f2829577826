// Outgoing webhooks, for both engines: the endpoints operators add (endpoints.ts), and a durable
// queue of deliveries, one per event and endpoint (deliveries.ts). An event is written by
// emitWebhookEvent in the transaction of the state change it reports (events.ts; a signup's
// events: signup-events.ts). Failures follow the retry schedule, then the delivery is given up; a
// 410 or five days of failures with no success disable the endpoint (schedule.ts, decision 0023).
// Signing secrets rotate with a grace (secrets.ts); finished deliveries are pruned (prune.ts).
import type { Sql } from '../sql';
import { createDeliveryQueue } from './deliveries';
import { createEndpoints } from './endpoints';
import { createPrune } from './prune';
import type { Webhooks } from './types';

export { emitWebhookEvent, emitWebhookEvents } from './events';
export { RETRY_SCHEDULE_MS, WEBHOOK_TIMEOUT_MS } from './schedule';
export type { SignupEvents } from './signup-events';
export * from './types';

export function createWebhooks(sql: Sql, now: () => number): Webhooks {
  return {
    ...createEndpoints(sql, now),
    ...createDeliveryQueue(sql, now),
    prune: createPrune(sql),
  };
}
