// Durable queue of signups the backend could not take (refused, timed out, 5xx), for both engines.
// A row is the whole request the first attempt sent (path, fields, forwarded headers,
// Idempotency-Key), written before the visitor gets 202 and removed once the backend answers
// anything but a 5xx. A worker claims due rows for a lease (leases.ts), so no other worker, on this
// replica or another, takes the same row meanwhile; retries back off exponentially, capped at
// about five minutes; a row still failing past the maximum age is set aside as dead, kept for the
// operator (outbox retry <id>). Past its configured size the queue refuses new rows
// (QueueFullError: the visitor gets 503), it never drops one.
import type { SignupRequest } from '../../shared/form-checks';
import { QueueFullError } from './errors';
import { backoffMs, claimStatement, enqueueStatement, Leases } from './leases';
import type { QueueLimits } from './limits';
import type { Sql } from './sql';

export interface OutboxItem {
  id: number;
  request: SignupRequest;
  attempts: number;
  nextAttemptAt: number;
  lastError: string | null;
  createdAt: string;
  /** 'dead': older than the maximum age; kept for the operator (outbox retry <id>). */
  state: 'pending' | 'dead';
}

export interface Outbox {
  /** Stores a signup request for later delivery; QueueFullError past the configured size. */
  enqueue(request: SignupRequest): Promise<number>;
  /** Claims up to `limit` due items for one lease: no other replica takes them meanwhile. */
  claim(limit: number): Promise<OutboxItem[]>;
  /**
   * The backend took the item. Like every outcome, it counts only while this store instance's claim
   * is the current one (leases.ts): false when another worker has claimed the item since.
   */
  delivered(id: number): Promise<boolean>;
  /**
   * A failed attempt: due again after the backoff, or dead once older than the maximum age. False
   * as for delivered.
   */
  failed(item: OutboxItem, error: string): Promise<boolean>;
  /** Pending and dead items, oldest first. */
  all(): Promise<OutboxItem[]>;
  /** Pending items. */
  depth(): Promise<number>;
  /** Dead items, waiting for the operator (outbox retry <id>). */
  deadCount(): Promise<number>;
  /** When the next pending item is due, or undefined when none is. */
  nextDueAt(): Promise<number | undefined>;
  /** Makes a dead item pending again, due now. False if there is no dead item with that id. */
  retry(id: number): Promise<boolean>;
}

const BACKOFF_BASE_MS = 2_000;
const BACKOFF_CAP_MS = 5 * 60_000;

/**
 * Delay before retry number `attempts` (1-based): 2 s, 4 s, 8 s …, ±20 % jitter, never over 5 min.
 */
export const outboxBackoffMs = (attempts: number) =>
  backoffMs(attempts, BACKOFF_BASE_MS, BACKOFF_CAP_MS);

export const FIRST_RETRY_MS = BACKOFF_BASE_MS;

interface OutboxRow {
  id: number;
  path: string;
  fields: string;
  headers: string;
  idempotency_key: string | null;
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  created_at: string;
  state: 'pending' | 'dead';
}

const COLUMNS =
  'id, path, fields, headers, idempotency_key, attempts, next_attempt_at, last_error, ' +
  'created_at, state';

const toOutboxItem = (row: OutboxRow): OutboxItem => ({
  id: Number(row.id),
  request: {
    path: row.path,
    fields: JSON.parse(row.fields) as SignupRequest['fields'],
    forwarded: JSON.parse(row.headers) as SignupRequest['forwarded'],
    // Rows queued before schema 2 had none; their id is stable across attempts all the same.
    idempotencyKey: row.idempotency_key ?? `outbox-${row.id}`,
  },
  attempts: row.attempts,
  nextAttemptAt: Number(row.next_attempt_at),
  lastError: row.last_error,
  createdAt: row.created_at,
  state: row.state,
});

export function createOutbox(
  sql: Sql,
  limits: Pick<QueueLimits, 'outboxMaxItems' | 'maxAgeMs' | 'outboxLeaseMs'>,
  now: () => number,
): Outbox {
  const leases = new Leases();

  /** The rows `where` matches. */
  const count = async (where: string) => {
    const { rows } = await sql.query<{ n: number }>(
      `SELECT COUNT(*) AS n
       FROM outbox
       WHERE ${where}`,
    );
    return Number(rows[0].n);
  };

  return {
    // The count and the insert are one statement. SQLite's single writer makes the bound exact;
    // on PostgreSQL, signups arriving on several replicas at the same moment may each see room
    // for one, so the bound can be passed by a few rows (it protects the disk, it is not a
    // quota); serialising every signup while the backend is down would cost more than those rows.
    async enqueue(request) {
      const { path, fields, forwarded, idempotencyKey } = request;
      const at = now();
      const { rows } = await sql.query<{ id: number }>(
        enqueueStatement('outbox', 'pending', [
          'path',
          'fields',
          'headers',
          'idempotency_key',
          'next_attempt_at',
          'created_at',
        ]),
        [
          path,
          JSON.stringify(fields),
          JSON.stringify(forwarded),
          idempotencyKey,
          at + FIRST_RETRY_MS,
          new Date(at).toISOString(),
          limits.outboxMaxItems,
        ],
      );
      if (rows.length === 0) throw new QueueFullError('outbox');
      return Number(rows[0].id);
    },

    async claim(limit) {
      const at = now();
      const leaseUntil = at + limits.outboxLeaseMs;
      const { rows } = await sql.query<OutboxRow>(
        claimStatement(sql, 'outbox', 'pending', COLUMNS),
        [leaseUntil, at, limit],
      );
      const items = rows
        .map(toOutboxItem)
        .sort((a, b) => a.nextAttemptAt - b.nextAttemptAt || a.id - b.id);
      leases.hold(
        items.map((item) => item.id),
        leaseUntil,
      );
      return items;
    },

    async delivered(id) {
      const fence = leases.fence(id, '$2', now());
      const { rowCount } = await sql.query(
        `DELETE FROM outbox
         WHERE id = $1 AND ${fence.where}`,
        [id, fence.value],
      );
      leases.end(id, rowCount === 1);
      return rowCount === 1;
    },

    async failed(item, error) {
      const attempts = item.attempts + 1;
      const at = now();
      const fence = leases.fence(item.id, '$6', at);
      const { rowCount } = await sql.query(
        `UPDATE outbox
         SET attempts = $1, next_attempt_at = $2, lease_until = 0, last_error = $3,
           state = CASE WHEN created_at < $4 THEN 'dead' ELSE 'pending' END
         WHERE id = $5 AND state = 'pending' AND ${fence.where}`,
        [
          attempts,
          at + outboxBackoffMs(attempts),
          error.slice(0, 500),
          new Date(at - limits.maxAgeMs).toISOString(),
          item.id,
          fence.value,
        ],
      );
      leases.end(item.id, rowCount === 1);
      return rowCount === 1;
    },

    async all() {
      const { rows } = await sql.query<OutboxRow>(
        `SELECT ${COLUMNS}
         FROM outbox
         ORDER BY id`,
      );
      return rows.map(toOutboxItem);
    },

    depth: () => count("state = 'pending'"),

    deadCount: () => count("state = 'dead'"),

    async nextDueAt() {
      const { rows } = await sql.query<{ t: number | null }>(
        `SELECT MIN(next_attempt_at) AS t
         FROM outbox
         WHERE state = 'pending'`,
      );
      return rows[0].t ?? undefined;
    },

    async retry(id) {
      const at = now();
      const result = await sql.query(
        `UPDATE outbox
         SET state = 'pending', next_attempt_at = $1, lease_until = 0, created_at = $2
         WHERE id = $3 AND state = 'dead'`,
        [at, new Date(at).toISOString(), id],
      );
      return result.rowCount === 1;
    },
  };
}
