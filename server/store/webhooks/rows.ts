// The two webhook tables as the store reads them, webhook_endpoints and webhook_deliveries, and
// the contract's shapes made from their rows.
import { randomBytes } from 'node:crypto';
import type { Queryable } from '../sql';
import type { WebhookDelivery, WebhookEndpoint, WebhookEventType } from './types';

export interface EndpointRow {
  id: string;
  url: string;
  name: string | null;
  events: string;
  with_address: number;
  secrets: string;
  created_at: string;
  failing_since: string | null;
  disabled_at: string | null;
  disabled_reason: string | null;
}

export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  type: WebhookEventType;
  payload: string;
  created_at: string;
  state: WebhookDelivery['state'];
  attempts: number;
  next_attempt_at: number | string;
  last_status: number | null;
  last_duration_ms: number | null;
  last_error: string | null;
  delivered_at: string | null;
}

export const ENDPOINT_COLUMNS =
  'id, url, name, events, with_address, secrets, created_at, failing_since, disabled_at, ' +
  'disabled_reason';

export const DELIVERY_COLUMNS =
  'id, endpoint_id, type, payload, created_at, state, attempts, next_attempt_at, last_status, ' +
  'last_duration_ms, last_error, delivered_at';

/** A new id: `ep_…` for an endpoint, `msg_…` for a delivery (its webhook-id). */
export const randomId = (prefix: string) => `${prefix}_${randomBytes(16).toString('base64url')}`;

export const toEndpoint = (row: EndpointRow): WebhookEndpoint => ({
  id: row.id,
  url: row.url,
  name: row.name,
  events: JSON.parse(row.events) as WebhookEventType[],
  withAddress: Number(row.with_address) === 1,
  createdAt: row.created_at,
  failingSince: row.failing_since,
  disabledAt: row.disabled_at,
  disabledReason: row.disabled_reason,
});

export const toDelivery = (row: DeliveryRow): WebhookDelivery => ({
  id: row.id,
  endpointId: row.endpoint_id,
  type: row.type,
  payload: row.payload,
  createdAt: row.created_at,
  state: row.state,
  attempts: Number(row.attempts),
  nextAttemptAt: Number(row.next_attempt_at),
  lastStatus: row.last_status === null ? null : Number(row.last_status),
  lastDurationMs: row.last_duration_ms === null ? null : Number(row.last_duration_ms),
  lastError: row.last_error,
  deliveredAt: row.delivered_at,
});

/** The endpoint's row; `lock` (sql.lockRows): held until the transaction ends. */
export async function endpointRow(
  tx: Queryable,
  id: string,
  lock = '',
): Promise<EndpointRow | undefined> {
  const { rows } = await tx.query<EndpointRow>(
    `SELECT ${ENDPOINT_COLUMNS}
     FROM webhook_endpoints
     WHERE id = $1${lock}`,
    [id],
  );
  return rows[0];
}
