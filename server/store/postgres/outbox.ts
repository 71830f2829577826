// The outbox in PostgreSQL, with the SQLite outbox's semantics (server/store/outbox.ts): the whole
// signup request, kept until the backend takes it, retried with backoff, dead past the maximum
// age. Every replica's worker claims from it: a claim skips rows another replica's claim has
// locked (SKIP LOCKED) and leases what it takes, so each item goes out from one replica at a
// time, and one whose replica died mid-delivery (kill -9) is claimed again once its lease runs out.
import { FIRST_RETRY_MS, outboxBackoffMs, toOutboxItem, type OutboxRow } from '../outbox';
import { QueueFullError, type Outbox, type QueueLimits } from '../types';
import type { Connection } from './connection';

/** The columns toOutboxItem reads, with the JSON as the text it was stored as. */
const COLUMNS = 'id, path, fields::text AS fields, headers::text AS headers, idempotency_key, attempts, next_attempt_at, last_error, created_at, state';

export function createOutbox(db: Connection, limits: Pick<QueueLimits, 'outboxMaxItems' | 'maxAgeMs' | 'outboxLeaseMs'>, now: () => number): Outbox {
  return {
    // The count and the insert are one statement, with no lock: signups arriving on several
    // replicas at the same moment may each see room for one, so the bound can be passed by a
    // few rows under concurrency (it protects the disk, it is not a quota); serialising every
    // signup while the backend is down would cost more than those rows.
    async enqueue(request) {
      const { path, fields, forwarded, idempotencyKey } = request;
      const at = now();
      const { rows } = await db.query<{ id: number }>(
        `INSERT INTO outbox (path, fields, headers, idempotency_key, next_attempt_at, created_at)
         SELECT $1, $2, $3, $4, $5, $6 WHERE (SELECT COUNT(*) FROM outbox WHERE state = 'pending') < $7
         RETURNING id`,
        [path, JSON.stringify(fields), JSON.stringify(forwarded), idempotencyKey, at + FIRST_RETRY_MS, new Date(at).toISOString(), limits.outboxMaxItems],
      );
      if (rows.length === 0) throw new QueueFullError('outbox');
      return rows[0].id;
    },

    async claim(limit) {
      const at = now();
      const { rows } = await db.query<OutboxRow>(
        `WITH claimed AS (
           UPDATE outbox SET lease_until = $1 WHERE id IN (
             SELECT id FROM outbox WHERE state = 'pending' AND next_attempt_at <= $2 AND lease_until <= $2
             ORDER BY next_attempt_at, id LIMIT $3 FOR UPDATE SKIP LOCKED)
           RETURNING ${COLUMNS})
         SELECT * FROM claimed ORDER BY next_attempt_at, id`,
        [at + limits.outboxLeaseMs, at, limit],
      );
      return rows.map(toOutboxItem);
    },

    async delivered(id) {
      await db.query('DELETE FROM outbox WHERE id = $1', [id]);
    },

    async failed(item, error) {
      const attempts = item.attempts + 1;
      const at = now();
      await db.query(
        `UPDATE outbox SET attempts = $1, next_attempt_at = $2, lease_until = 0, last_error = $3,
           state = CASE WHEN created_at < $4 THEN 'dead' ELSE 'pending' END
         WHERE id = $5 AND state = 'pending'`,
        [attempts, at + outboxBackoffMs(attempts), error.slice(0, 500), new Date(at - limits.maxAgeMs).toISOString(), item.id],
      );
    },

    async all() {
      return (await db.query<OutboxRow>(`SELECT ${COLUMNS} FROM outbox ORDER BY id`)).rows.map(toOutboxItem);
    },

    async depth() {
      return (await db.query<{ n: number }>("SELECT COUNT(*) AS n FROM outbox WHERE state = 'pending'")).rows[0].n;
    },

    async nextDueAt() {
      const { rows } = await db.query<{ t: number | null }>("SELECT MIN(next_attempt_at) AS t FROM outbox WHERE state = 'pending'");
      return rows[0].t ?? undefined;
    },

    async retry(id) {
      const at = now();
      const result = await db.query("UPDATE outbox SET state = 'pending', next_attempt_at = $1, lease_until = 0, created_at = $2 WHERE id = $3 AND state = 'dead'", [
        at,
        new Date(at).toISOString(),
        id,
      ]);
      return result.rowCount === 1;
    },
  };
}
