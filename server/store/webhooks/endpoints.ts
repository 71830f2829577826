// The endpoints operators add (waitlist webhooks, the console): each with its URL, its name, the
// events it asks for, whether it receives addresses, and its signing secrets.
import type { Sql } from '../sql';
import { insertDelivery } from './events';
import { endpointRow, ENDPOINT_COLUMNS, randomId, toEndpoint, type EndpointRow } from './rows';
import { firstSecrets, newWebhookSecret, rotatedSecrets } from './secrets';
import type { Webhooks } from './types';

export type Endpoints = Pick<
  Webhooks,
  'add' | 'list' | 'get' | 'rename' | 'remove' | 'rotate' | 'test' | 'disabledCount'
>;

export function createEndpoints(sql: Sql, now: () => number): Endpoints {
  return {
    async add({ url, name, events, withAddress }) {
      const id = randomId('ep');
      const secret = newWebhookSecret();
      await sql.query(
        `INSERT INTO webhook_endpoints (id, url, name, events, with_address, secrets, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [
          id,
          url,
          name ?? null,
          JSON.stringify(events),
          withAddress ? 1 : 0,
          firstSecrets(secret),
          new Date(now()).toISOString(),
        ],
      );
      return { id, secret };
    },

    async list() {
      const { rows } = await sql.query<EndpointRow>(
        `SELECT ${ENDPOINT_COLUMNS}
         FROM webhook_endpoints
         ORDER BY created_at, id`,
      );
      return rows.map(toEndpoint);
    },

    async get(id) {
      const row = await endpointRow(sql, id);
      return row && toEndpoint(row);
    },

    async rename(id, name) {
      const { rowCount } = await sql.query(
        `UPDATE webhook_endpoints
         SET name = $1
         WHERE id = $2`,
        [name, id],
      );
      return rowCount === 1;
    },

    async remove(id) {
      return sql.transaction(async (tx) => {
        await tx.query(
          `DELETE FROM webhook_deliveries
           WHERE endpoint_id = $1`,
          [id],
        );
        const { rowCount } = await tx.query(
          `DELETE FROM webhook_endpoints
           WHERE id = $1`,
          [id],
        );
        return rowCount === 1;
      });
    },

    async rotate(id, graceMs) {
      return sql.transaction(async (tx) => {
        const row = await endpointRow(tx, id, sql.lockRows);
        if (!row) return undefined;
        const secret = newWebhookSecret();
        await tx.query(
          `UPDATE webhook_endpoints
           SET secrets = $1
           WHERE id = $2`,
          [rotatedSecrets(row.secrets, secret, now(), graceMs), id],
        );
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

    async disabledCount() {
      const { rows } = await sql.query<{ n: number | string }>(
        `SELECT COUNT(*) AS n
         FROM webhook_endpoints
         WHERE disabled_at IS NOT NULL`,
      );
      return Number(rows[0].n);
    },
  };
}
