// The queue of webhook deliveries, one per event and endpoint. A worker claims due deliveries
// with the outbox's fenced leases (../leases.ts), on every replica. A failure is retried on the
// schedule (schedule.ts), then given up; a 410 or five days of failures with no success disable
// the endpoint. A replay queues given-up deliveries again, unchanged, and re-enables the endpoint.
import { Leases } from '../leases';
import { sinceInstant } from '../since';
import { placeholders, type Sql } from '../sql';
import {
  DELIVERY_COLUMNS,
  endpointRow,
  ENDPOINT_COLUMNS,
  toDelivery,
  type DeliveryRow,
  type EndpointRow,
} from './rows';
import { FAILING_FOR_MS, retryWait, WEBHOOK_TIMEOUT_MS } from './schedule';
import { signingSecrets } from './secrets';
import type { ClaimedWebhook, Webhooks } from './types';

export type DeliveryQueue = Pick<
  Webhooks,
  'claim' | 'delivered' | 'failed' | 'replay' | 'deliveries' | 'nextDueAt'
>;

export function createDeliveryQueue(sql: Sql, now: () => number): DeliveryQueue {
  const leases = new Leases<string>();
  // A round's sends run side by side, each within WEBHOOK_TIMEOUT_MS, so one attempt and some
  // slack; a lease that runs out early only lets another worker send again, under the same id.
  const leaseMs = WEBHOOK_TIMEOUT_MS + 5_000;

  /** The endpoints of claimed deliveries, by id. */
  async function endpointsOf(ids: string[]): Promise<Map<string, EndpointRow>> {
    const { rows } = await sql.query<EndpointRow>(
      `SELECT ${ENDPOINT_COLUMNS}
       FROM webhook_endpoints
       WHERE id IN (${placeholders(ids)})`,
      ids,
    );
    return new Map(rows.map((row) => [row.id, row]));
  }

  return {
    async claim(limit) {
      const at = now();
      const leaseUntil = at + leaseMs;
      const { rows } = await sql.query<DeliveryRow>(
        `UPDATE webhook_deliveries
         SET lease_until = $1
         WHERE id IN (
           SELECT id
           FROM webhook_deliveries
           WHERE state = 'pending' AND next_attempt_at <= $2 AND lease_until <= $2
             AND endpoint_id IN (SELECT id FROM webhook_endpoints WHERE disabled_at IS NULL)
           ORDER BY next_attempt_at, id
           LIMIT $3${sql.skipLocked}
         )
         RETURNING ${DELIVERY_COLUMNS}`,
        [leaseUntil, at, limit],
      );
      if (rows.length === 0) return [];
      const endpoints = await endpointsOf([...new Set(rows.map((row) => row.endpoint_id))]);
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
          `UPDATE webhook_deliveries
           SET state = 'delivered', attempts = $1, lease_until = 0, last_status = $2,
             last_duration_ms = $3, last_error = NULL, delivered_at = $4
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
          await tx.query(
            `UPDATE webhook_endpoints
             SET failing_since = NULL
             WHERE id = $1`,
            [delivery.endpointId],
          );
        return rowCount === 1;
      });
      leases.end(delivery.id, recorded);
      return recorded;
    },

    async failed(delivery, failure) {
      const at = now();
      const time = new Date(at).toISOString();
      const attempts = delivery.attempts + 1;
      const wait = retryWait(attempts, failure.retryAfterMs);
      const givenUp = wait === undefined || failure.disable !== undefined;
      const fence = leases.fence(delivery.id, '$8', at);
      const recorded = await sql.transaction(async (tx) => {
        const { rowCount } = await tx.query(
          `UPDATE webhook_deliveries
           SET state = $1, attempts = $2, next_attempt_at = $3, lease_until = 0,
             last_status = $4, last_duration_ms = $5, last_error = $6
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
          `UPDATE webhook_endpoints
           SET failing_since = COALESCE(failing_since, $1)
           WHERE id = $2`,
          [time, delivery.endpointId],
        );
        // A 410 disables the endpoint at once; otherwise five days of failures with no success.
        await tx.query(
          `UPDATE webhook_endpoints
           SET disabled_at = $1, disabled_reason = $2
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
          `UPDATE webhook_deliveries
           SET state = 'pending', attempts = 0, next_attempt_at = $1, lease_until = 0,
             delivered_at = NULL
           WHERE endpoint_id = $2 AND ${which}`,
          since === undefined ? [at, id] : [at, id, sinceInstant(since)],
        );
        await tx.query(
          `UPDATE webhook_endpoints
           SET disabled_at = NULL, disabled_reason = NULL, failing_since = NULL
           WHERE id = $1`,
          [id],
        );
        return { queued: rowCount, reenabled: row.disabled_at !== null };
      });
    },

    async deliveries(endpointId, limit) {
      const { rows } = await sql.query<DeliveryRow>(
        `SELECT ${DELIVERY_COLUMNS}
         FROM webhook_deliveries
         WHERE endpoint_id = $1
         ORDER BY created_at DESC, id DESC
         LIMIT $2`,
        [endpointId, limit],
      );
      return rows.map(toDelivery);
    },

    async nextDueAt() {
      const { rows } = await sql.query<{ t: number | string | null }>(
        `SELECT MIN(next_attempt_at) AS t
         FROM webhook_deliveries
         WHERE state = 'pending'`,
      );
      return rows[0].t === null ? undefined : Number(rows[0].t);
    },
  };
}
