// Durable queue of signups the backend could not take (refused, timed out, 5xx). A row is the
// whole request the first attempt sent (path, fields, forwarded headers, Idempotency-Key), written
// before the visitor gets 202 and removed once the backend answers anything but a 5xx. Retries
// back off exponentially, capped at about five minutes.
import type { SignupRequest } from '../delivery/backend-client';
import type { Db } from './db';

export interface OutboxItem {
  id: number;
  request: SignupRequest;
  attempts: number;
  nextAttemptAt: number;
  lastError: string | null;
  createdAt: string;
}

const BACKOFF_BASE_MS = 2_000;
const BACKOFF_CAP_MS = 5 * 60_000;

/** Delay before retry number `attempts` (1-based): 2 s, 4 s, 8 s … capped at 5 min, ±20 % jitter. */
function backoffMs(attempts: number): number {
  const plain = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, attempts - 1));
  return Math.round(plain * (0.8 + 0.4 * Math.random()));
}

interface Row {
  id: number;
  path: string;
  fields: string;
  headers: string;
  idempotency_key: string | null;
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  created_at: string;
}

const toItem = (row: Row): OutboxItem => ({
  id: row.id,
  request: {
    path: row.path,
    fields: JSON.parse(row.fields) as SignupRequest['fields'],
    forwarded: JSON.parse(row.headers) as SignupRequest['forwarded'],
    // Rows queued before schema 2 had none; their id is stable across attempts all the same.
    idempotencyKey: row.idempotency_key ?? `outbox-${row.id}`,
  },
  attempts: row.attempts,
  nextAttemptAt: row.next_attempt_at,
  lastError: row.last_error,
  createdAt: row.created_at,
});

export function createOutbox(db: Db, now: () => number = Date.now) {
  const insert = db.prepare(
    'INSERT INTO outbox (path, fields, headers, idempotency_key, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const due = db.prepare('SELECT * FROM outbox WHERE next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?');
  const all = db.prepare('SELECT * FROM outbox ORDER BY id');
  const depth = db.prepare('SELECT COUNT(*) AS n FROM outbox');
  const remove = db.prepare('DELETE FROM outbox WHERE id = ?');
  const reschedule = db.prepare('UPDATE outbox SET attempts = ?, next_attempt_at = ?, last_error = ? WHERE id = ?');
  const earliest = db.prepare('SELECT MIN(next_attempt_at) AS t FROM outbox');

  return {
    /** Stores a signup request for later delivery; committed when this returns. */
    enqueue(request: SignupRequest, firstAttemptAt = now() + BACKOFF_BASE_MS): number {
      const { path, fields, forwarded, idempotencyKey } = request;
      const result = insert.run(path, JSON.stringify(fields), JSON.stringify(forwarded), idempotencyKey, firstAttemptAt, new Date(now()).toISOString());
      return Number(result.lastInsertRowid);
    },
    due(limit = 10): OutboxItem[] {
      return (due.all(now(), limit) as Row[]).map(toItem);
    },
    all(): OutboxItem[] {
      return (all.all() as Row[]).map(toItem);
    },
    depth(): number {
      return (depth.get() as { n: number }).n;
    },
    /** When the next item is due, or undefined when the queue is empty. */
    nextDueAt(): number | undefined {
      return (earliest.get() as { t: number | null }).t ?? undefined;
    },
    delivered(id: number): void {
      remove.run(id);
    },
    failed(item: OutboxItem, error: string): void {
      const attempts = item.attempts + 1;
      reschedule.run(attempts, now() + backoffMs(attempts), error.slice(0, 500), item.id);
    },
  };
}

export type Outbox = ReturnType<typeof createOutbox>;
