// Pruning the delivery history: delivered and given-up deliveries go once older than the caller
// asks (a month: server/waitlist/webhooks.ts), and so do the pending ones of a disabled endpoint.
// Other pending ones stay, however old: they are still on their way to their receiver.
import type { Sql } from '../sql';
import type { Webhooks } from './types';

export function createPrune(sql: Sql): Webhooks['prune'] {
  return async (before, limit) => {
    const { rowCount } = await sql.query(
      `DELETE FROM webhook_deliveries
       WHERE id IN (
         SELECT id
         FROM webhook_deliveries
         WHERE created_at < $1 AND (state <> 'pending'
           OR endpoint_id IN (SELECT id FROM webhook_endpoints WHERE disabled_at IS NOT NULL))
         LIMIT $2
       )`,
      [before, limit],
    );
    return rowCount;
  };
}
