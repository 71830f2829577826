// Durable queue of signups the backend could not take (refused, timed out, 5xx), in SQLite. A row
// is the whole request the first attempt sent (path, fields, forwarded headers, Idempotency-Key),
// written before the visitor gets 202 and removed once the backend answers anything but a 5xx.
// A sender claims due rows for a lease, so a second worker never takes the same row; retries back
// off exponentially, capped at about five minutes; a row still failing past the maximum age is
// set aside as dead, kept for the operator (outbox retry <id>). Past its configured size the queue
// refuses new rows (QueueFullError: the visitor gets 503), it never drops one.
import type { SignupRequest } from '../delivery/backend-client';
import type { Db } from './db';
import { QueueFullError, type Outbox, type OutboxItem, type QueueLimits } from './types';

const BACKOFF_BASE_MS = 2_000;
const BACKOFF_CAP_MS = 5 * 60_000;
/**
 * A lease three deliveries long, plus slack: each delivery ends within UPSTREAM_TIMEOUT_MS
 * (postSignup's timeout), so an honest worker is long done before its lease runs out. With the
 * default 10 s that is 35 s: what a replica killed mid-delivery holds its items back.
 */
export function outboxLeaseFor(backendTimeoutMs: number): number {
  return 3 * backendTimeoutMs + 5_000;
}

/** Delay before retry number `attempts` (1-based): 2 s, 4 s, 8 s …, ±20 % jitter, never over 5 min. */
export function outboxBackoffMs(attempts: number): number {
  const plain = BACKOFF_BASE_MS * 2 ** Math.min(20, Math.max(0, attempts - 1));
  return Math.min(BACKOFF_CAP_MS, Math.round(plain * (0.8 + 0.4 * Math.random())));
}

export const FIRST_RETRY_MS = BACKOFF_BASE_MS;

export interface OutboxRow {
  id: number;
  path: string;
  fields: string;
  headers: string;
  idempotency_key: string | null;
  attempts: number;
  next_attempt_at: number | string;
  last_error: string | null;
  created_at: string;
  state: 'pending' | 'dead';
}

export const toOutboxItem = (row: OutboxRow): OutboxItem => ({
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

export function createOutbox(db: Db, limits: Pick<QueueLimits, 'outboxMaxItems' | 'maxAgeMs' | 'outboxLeaseMs'>, now: () => number = Date.now): Outbox {
  const insert = db.prepare(
    'INSERT INTO outbox (path, fields, headers, idempotency_key, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const claim = db.prepare(
    `UPDATE outbox SET lease_until = @until WHERE id IN (
       SELECT id FROM outbox WHERE state = 'pending' AND next_attempt_at <= @now AND lease_until <= @now
       ORDER BY next_attempt_at, id LIMIT @limit)
     RETURNING *`,
  );
  const all = db.prepare('SELECT * FROM outbox ORDER BY id');
  const depth = db.prepare("SELECT COUNT(*) AS n FROM outbox WHERE state = 'pending'").pluck();
  const remove = db.prepare('DELETE FROM outbox WHERE id = ?');
  const reschedule = db.prepare(
    `UPDATE outbox SET attempts = @attempts, next_attempt_at = @due, lease_until = 0, last_error = @error,
       state = CASE WHEN created_at < @deadBefore THEN 'dead' ELSE 'pending' END
     WHERE id = @id AND state = 'pending'`,
  );
  const revive = db.prepare("UPDATE outbox SET state = 'pending', next_attempt_at = ?, lease_until = 0, created_at = ? WHERE id = ? AND state = 'dead'");
  const earliest = db.prepare("SELECT MIN(next_attempt_at) AS t FROM outbox WHERE state = 'pending'").pluck();

  const enqueue = db.transaction((request: SignupRequest): number => {
    if ((depth.get() as number) >= limits.outboxMaxItems) throw new QueueFullError('outbox');
    const { path, fields, forwarded, idempotencyKey } = request;
    const at = now();
    const result = insert.run(path, JSON.stringify(fields), JSON.stringify(forwarded), idempotencyKey, at + FIRST_RETRY_MS, new Date(at).toISOString());
    return Number(result.lastInsertRowid);
  });

  return {
    async enqueue(request) {
      return enqueue.immediate(request);
    },
    async claim(limit) {
      const at = now();
      return (claim.all({ until: at + limits.outboxLeaseMs, now: at, limit }) as OutboxRow[]).map(toOutboxItem);
    },
    async delivered(id) {
      remove.run(id);
    },
    async failed(item, error) {
      const attempts = item.attempts + 1;
      reschedule.run({
        attempts,
        due: now() + outboxBackoffMs(attempts),
        error: error.slice(0, 500),
        deadBefore: new Date(now() - limits.maxAgeMs).toISOString(),
        id: item.id,
      });
    },
    async all() {
      return (all.all() as OutboxRow[]).map(toOutboxItem);
    },
    async depth() {
      return depth.get() as number;
    },
    async nextDueAt() {
      return (earliest.get() as number | null) ?? undefined;
    },
    async retry(id) {
      return revive.run(now(), new Date(now()).toISOString(), id).changes === 1;
    },
  };
}
