// Outgoing webhooks, for both engines: the endpoints operators add, and a durable queue of
// deliveries, one per event and endpoint. An event is written by emitWebhookEvent in the
// transaction of the state change it reports, so a crash never loses one nor invents one. A worker
// claims due deliveries with the outbox's fenced leases (leases.ts), on every replica; each
// delivery keeps its id (the webhook-id) and its exact body across attempts, so a receiver can
// drop a duplicate. Failures follow RETRY_SCHEDULE_MS, then the delivery is given up; a 410 or five
// days of failures with no success disable the endpoint (decision 0023). A replay queues given-up
// deliveries again, unchanged, and re-enables the endpoint; finished ones are pruned after 30 days.
import { randomBytes } from 'node:crypto';
import { Leases } from '../leases';
import { sinceInstant } from '../since';
import type { Queryable, Sql } from '../sql';
import type {
  ClaimedWebhook,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEvent,
  WebhookEventType,
  Webhooks,
  WebhookSecret,
} from './types';

export * from './types';

/** The wait before retry n (1-based): Standard Webhooks' schedule; past its end, given up. */
export const RETRY_SCHEDULE_MS = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  14 * 3_600_000,
  20 * 3_600_000,
  24 * 3_600_000,
] as const;

/** An endpoint whose deliveries have failed this long with no success is disabled. */
export const FAILING_FOR_MS = 5 * 24 * 3_600_000;

/** Each attempt ends within this (server/webhooks/send.ts). */
export const WEBHOOK_TIMEOUT_MS = 15_000;

/** A Retry-After longer than the schedule's longest wait is not waited for in full. */
const RETRY_AFTER_CAP_MS = 24 * 3_600_000;

/** The wait before retry `attempts` (1-based), ±10 % so failed deliveries do not retry in step. */
export function webhookRetryMs(attempts: number): number | undefined {
  const base = RETRY_SCHEDULE_MS[attempts - 1];
  return base === undefined ? undefined : Math.round(base * (0.9 + 0.2 * Math.random()));
}

/** 32 random bytes, as Standard Webhooks writes a secret. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

const randomId = (prefix: string) => `${prefix}_${randomBytes(16).toString('base64url')}`;

interface EndpointRow {
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

interface DeliveryRow {
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

const ENDPOINT_COLUMNS =
  'id, url, name, events, with_address, secrets, created_at, failing_since, disabled_at, ' +
  'disabled_reason';
const DELIVERY_COLUMNS =
  'id, endpoint_id, type, payload, created_at, state, attempts, next_attempt_at, last_status, last_duration_ms, last_error, delivered_at';

const toEndpoint = (row: EndpointRow): WebhookEndpoint => ({
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

const toDelivery = (row: DeliveryRow): WebhookDelivery => ({
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

/** The secrets that still sign at `at`, newest first. */
const signingSecrets = (secrets: string, at: number) =>
  (JSON.parse(secrets) as WebhookSecret[])
    .filter((s) => s.expiresAt === null || s.expiresAt > at)
    .map((s) => s.secret);

async function insertDelivery(
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
 * change it reports. The endpoints are read once for all of them (a round of owed creations). A
 * disabled endpoint's events wait for it to be enabled again (a replay), so its receiver misses
 * nothing. The address goes only to endpoints configured to receive it.
 */
export async function emitWebhookEvents(
  tx: Queryable,
  events: readonly { event: WebhookEvent; at: number }[],
) {
  if (events.length === 0) return;
  const { rows } = await tx.query<Pick<EndpointRow, 'id' | 'events' | 'with_address'>>(
    'SELECT id, events, with_address FROM webhook_endpoints',
  );
  for (const { event, at } of events) {
    const time = new Date(at).toISOString();
    for (const endpoint of rows) {
      const types = JSON.parse(endpoint.events) as WebhookEventType[];
      if (types.length > 0 && !types.includes(event.type)) continue;
      const { id, email, emailKey, state } = event.signup;
      const withAddress = Number(endpoint.with_address) === 1 && email !== undefined;
      const data = { id, state, time, ...event.detail, ...(withAddress ? { email } : {}) };
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

export function createWebhooks(sql: Sql, now: () => number): Webhooks {
  const leases = new Leases<string>();
  // A round's sends run side by side, each within WEBHOOK_TIMEOUT_MS, so one attempt and some
  // slack; a lease that runs out early only lets another worker send again, under the same id.
  const leaseMs = WEBHOOK_TIMEOUT_MS + 5_000;

  /** The endpoint's row; `lock` (sql.lockRows): held until the transaction ends. */
  async function endpointRow(
    tx: Queryable,
    id: string,
    lock = '',
  ): Promise<EndpointRow | undefined> {
    return (
      await tx.query<EndpointRow>(
        `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = $1${lock}`,
        [id],
      )
    ).rows[0];
  }

  return {
    async add({ url, name, events, withAddress }) {
      const id = randomId('ep');
      const secret = newWebhookSecret();
      const secrets: WebhookSecret[] = [{ secret, expiresAt: null }];
      await sql.query(
        `INSERT INTO webhook_endpoints (id, url, name, events, with_address, secrets, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [
          id,
          url,
          name ?? null,
          JSON.stringify(events),
          withAddress ? 1 : 0,
          JSON.stringify(secrets),
          new Date(now()).toISOString(),
        ],
      );
      return { id, secret };
    },

    async list() {
      const { rows } = await sql.query<EndpointRow>(
        `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints ORDER BY created_at, id`,
      );
      return rows.map(toEndpoint);
    },

    async get(id) {
      const row = await endpointRow(sql, id);
      return row && toEndpoint(row);
    },

    async rename(id, name) {
      const { rowCount } = await sql.query('UPDATE webhook_endpoints SET name = $1 WHERE id = $2', [
        name,
        id,
      ]);
      return rowCount === 1;
    },

    async remove(id) {
      return sql.transaction(async (tx) => {
        await tx.query('DELETE FROM webhook_deliveries WHERE endpoint_id = $1', [id]);
        return (await tx.query('DELETE FROM webhook_endpoints WHERE id = $1', [id])).rowCount === 1;
      });
    },

    async rotate(id, graceMs) {
      return sql.transaction(async (tx) => {
        const row = await endpointRow(tx, id, sql.lockRows);
        if (!row) return undefined;
        const at = now();
        const secret = newWebhookSecret();
        // A secret whose time is up is forgotten, not kept expired: a revoked one is gone at once.
        const kept = (JSON.parse(row.secrets) as WebhookSecret[])
          .map((s) => ({
            secret: s.secret,
            expiresAt: Math.min(s.expiresAt ?? Infinity, at + graceMs),
          }))
          .filter((s) => s.expiresAt > at);
        await tx.query('UPDATE webhook_endpoints SET secrets = $1 WHERE id = $2', [
          JSON.stringify([{ secret, expiresAt: null }, ...kept]),
          id,
        ]);
        return secret;
      });
    },

    async test(id) {
      return sql.transaction(async (tx) => {
        const row = await endpointRow(tx, id);
        if (!row) return undefined;
        return insertDelivery(
          tx,
          row,
          { type: 'webhook.test', data: { endpoint: id }, holdsAddress: false },
          now(),
        );
      });
    },

    async claim(limit) {
      const at = now();
      const leaseUntil = at + leaseMs;
      const { rows } = await sql.query<DeliveryRow>(
        `UPDATE webhook_deliveries SET lease_until = $1 WHERE id IN (
           SELECT id FROM webhook_deliveries
           WHERE state = 'pending' AND next_attempt_at <= $2 AND lease_until <= $2
             AND endpoint_id IN (SELECT id FROM webhook_endpoints WHERE disabled_at IS NULL)
           ORDER BY next_attempt_at, id LIMIT $3${sql.skipLocked})
         RETURNING ${DELIVERY_COLUMNS}`,
        [leaseUntil, at, limit],
      );
      if (rows.length === 0) return [];
      const endpointIds = [...new Set(rows.map((row) => row.endpoint_id))];
      const endpoints = new Map(
        (
          await sql.query<EndpointRow>(
            `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id IN (${endpointIds
              .map((_, i) => `$${i + 1}`)
              .join(', ')})`,
            endpointIds,
          )
        ).rows.map((row) => [row.id, row]),
      );
      const claimed: ClaimedWebhook[] = [];
      for (const row of rows) {
        const endpoint = endpoints.get(row.endpoint_id);
        // Removed between the claim and this read: its deliveries went with it.
        if (!endpoint) continue;
        claimed.push({
          ...toDelivery(row),
          url: endpoint.url,
          secrets: signingSecrets(endpoint.secrets, at),
        });
      }
      claimed.sort((a, b) => a.nextAttemptAt - b.nextAttemptAt || a.id.localeCompare(b.id));
      leases.hold(
        claimed.map((delivery) => delivery.id),
        leaseUntil,
      );
      return claimed;
    },

    async delivered(delivery, { status, durationMs }) {
      const at = now();
      const fence = leases.fence(delivery.id, '$6', at);
      const recorded = await sql.transaction(async (tx) => {
        const { rowCount } = await tx.query(
          `UPDATE webhook_deliveries SET state = 'delivered', attempts = $1, lease_until = 0,
             last_status = $2, last_duration_ms = $3, last_error = NULL, delivered_at = $4
           WHERE id = $5 AND state = 'pending' AND ${fence.where}`,
          [
            delivery.attempts + 1,
            status,
            durationMs,
            new Date(at).toISOString(),
            delivery.id,
            fence.value,
          ],
        );
        if (rowCount === 1)
          await tx.query('UPDATE webhook_endpoints SET failing_since = NULL WHERE id = $1', [
            delivery.endpointId,
          ]);
        return rowCount === 1;
      });
      leases.end(delivery.id, recorded);
      return recorded;
    },

    async failed(delivery, failure) {
      const at = now();
      const time = new Date(at).toISOString();
      const attempts = delivery.attempts + 1;
      const scheduled = webhookRetryMs(attempts);
      const wait =
        scheduled === undefined
          ? undefined
          : Math.max(scheduled, Math.min(failure.retryAfterMs ?? 0, RETRY_AFTER_CAP_MS));
      const givenUp = wait === undefined || failure.disable !== undefined;
      const fence = leases.fence(delivery.id, '$8', at);
      const recorded = await sql.transaction(async (tx) => {
        const { rowCount } = await tx.query(
          `UPDATE webhook_deliveries SET state = $1, attempts = $2, next_attempt_at = $3,
             lease_until = 0, last_status = $4, last_duration_ms = $5, last_error = $6
           WHERE id = $7 AND state = 'pending' AND ${fence.where}`,
          [
            givenUp ? 'failed' : 'pending',
            attempts,
            at + (wait ?? 0),
            failure.status ?? null,
            Math.round(failure.durationMs),
            failure.error.slice(0, 500),
            delivery.id,
            fence.value,
          ],
        );
        if (rowCount !== 1) return false as const;
        await tx.query(
          'UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, $1) WHERE id = $2',
          [time, delivery.endpointId],
        );
        // A 410 disables the endpoint at once; otherwise five days of failures with no success.
        await tx.query(
          `UPDATE webhook_endpoints SET disabled_at = $1, disabled_reason = $2
           WHERE id = $3 AND disabled_at IS NULL AND ($4 = 1 OR failing_since <= $5)`,
          [
            time,
            failure.disable ?? 'every delivery failed for 5 days',
            delivery.endpointId,
            failure.disable === undefined ? 0 : 1,
            new Date(at - FAILING_FOR_MS).toISOString(),
          ],
        );
        return givenUp ? ('failed' as const) : ('pending' as const);
      });
      leases.end(delivery.id, recorded !== false);
      return recorded;
    },

    async replay(id, since) {
      return sql.transaction(async (tx) => {
        const row = await endpointRow(tx, id, sql.lockRows);
        if (!row) return undefined;
        const at = now();
        // Pending ones are left alone: one may be in a worker's hands right now. lease_until = 0
        // also refuses the outcome of any worker that claimed the delivery before.
        const which =
          since === undefined ? "state = 'failed'" : "state <> 'pending' AND created_at >= $3";
        const { rowCount } = await tx.query(
          `UPDATE webhook_deliveries SET state = 'pending', attempts = 0, next_attempt_at = $1,
             lease_until = 0, delivered_at = NULL
           WHERE endpoint_id = $2 AND ${which}`,
          since === undefined ? [at, id] : [at, id, sinceInstant(since)],
        );
        await tx.query(
          `UPDATE webhook_endpoints SET disabled_at = NULL, disabled_reason = NULL,
             failing_since = NULL WHERE id = $1`,
          [id],
        );
        return { queued: rowCount, reenabled: row.disabled_at !== null };
      });
    },

    async prune(before, limit) {
      const { rowCount } = await sql.query(
        `DELETE FROM webhook_deliveries WHERE id IN (
           SELECT id FROM webhook_deliveries WHERE created_at < $1 AND (state <> 'pending'
             OR endpoint_id IN (SELECT id FROM webhook_endpoints WHERE disabled_at IS NOT NULL))
           LIMIT $2)`,
        [before, limit],
      );
      return rowCount;
    },

    async disabledCount() {
      const { rows } = await sql.query<{ n: number | string }>(
        'SELECT COUNT(*) AS n FROM webhook_endpoints WHERE disabled_at IS NOT NULL',
      );
      return Number(rows[0].n);
    },

    async deliveries(endpointId, limit) {
      const { rows } = await sql.query<DeliveryRow>(
        `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE endpoint_id = $1
         ORDER BY created_at DESC, id DESC LIMIT $2`,
        [endpointId, limit],
      );
      return rows.map(toDelivery);
    },

    async nextDueAt() {
      const { rows } = await sql.query<{ t: number | string | null }>(
        "SELECT MIN(next_attempt_at) AS t FROM webhook_deliveries WHERE state = 'pending'",
      );
      return rows[0].t === null ? undefined : Number(rows[0].t);
    },
  };
}
