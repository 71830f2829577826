// Event fan-out: an event becomes one delivery for each endpoint that asks for it, written on the
// transaction of the state change it reports, so a crash never loses one nor invents one. Each
// delivery keeps its id (the webhook-id) and its exact body across attempts, so a receiver can
// drop a duplicate.
import type { Queryable } from '../sql';
import { randomId, type EndpointRow } from './rows';
import type { WebhookEvent, WebhookEventType } from './types';

/** Queues one delivery of an event (or of `webhook.test`) for the endpoint; its id. */
export async function insertDelivery(
  tx: Queryable,
  endpoint: Pick<EndpointRow, 'id'>,
  delivery: { type: WebhookEventType; data: object; emailKey?: string; holdsAddress: boolean },
  at: number,
): Promise<string> {
  const id = randomId('msg');
  const timestamp = new Date(at).toISOString();
  const payload = JSON.stringify({ type: delivery.type, timestamp, data: delivery.data });
  await tx.query(
    `INSERT INTO webhook_deliveries
       (id, endpoint_id, type, payload, email_key, holds_address, created_at, next_attempt_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      id,
      endpoint.id,
      delivery.type,
      payload,
      delivery.emailKey ?? null,
      delivery.holdsAddress ? 1 : 0,
      timestamp,
      at,
    ],
  );
  return id;
}

/**
 * Queues each event for every endpoint that asks for it, on `tx`: the transaction of the state
 * change it reports. The endpoints are read once for all of them (a round of due creations). A
 * disabled endpoint's events wait for it to be enabled again (a replay), so its receiver misses
 * nothing. The address goes only to endpoints configured to receive it.
 */
export async function emitWebhookEvents(
  tx: Queryable,
  events: readonly { event: WebhookEvent; at: number }[],
) {
  if (events.length === 0) return;
  const { rows } = await tx.query<Pick<EndpointRow, 'id' | 'events' | 'with_address'>>(
    `SELECT id, events, with_address
     FROM webhook_endpoints`,
  );
  for (const { event, at } of events) {
    const time = new Date(at).toISOString();
    for (const endpoint of rows) {
      const types = JSON.parse(endpoint.events) as WebhookEventType[];
      if (types.length > 0 && !types.includes(event.type)) continue;
      const { id, email, emailKey, state, language, source } = event.signup;
      const withAddress = Number(endpoint.with_address) === 1 && email !== undefined;
      const data = {
        id,
        state,
        time,
        ...event.detail,
        ...(withAddress ? { email } : {}),
        language,
        // Where it came from: the fields known, none when nothing is (decision 0035).
        ...Object.fromEntries(Object.entries(source ?? {}).filter(([, value]) => value !== null)),
      };
      await insertDelivery(
        tx,
        endpoint,
        { type: event.type, data, emailKey, holdsAddress: withAddress },
        at,
      );
    }
  }
}

/** One event: emitWebhookEvents. */
export const emitWebhookEvent = (tx: Queryable, event: WebhookEvent, at: number) =>
  emitWebhookEvents(tx, [{ event, at }]);
