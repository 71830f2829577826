// Durable queue of invitation mail in SQLite. A message is written in the same transaction as the
// key it carries and stays here until the mail server has taken it. Whoever sends a message first
// claims it with a lease (the CLI right after inviting, otherwise a mail worker), so two senders
// never take the same message at once; a sender that dies leaves a lease that simply runs out,
// and the message is sent again from here. Once sent or refused for good, the stored message
// (which holds the key) is cleared: only its Message-ID, state and times remain. A message still
// failing past the maximum age is set aside as dead, body kept, until the operator sends it again
// (mail retry <id>).
import type { Db } from './db';
import { QueueFullError, type MailQueue, type MailState, type MailSummary, type OutgoingMail, type QueuedMail, type QueueLimits } from './types';

/** A claim outlives any one send (connect, greeting and socket timeouts are all well under it). */
export const MAIL_LEASE_MS = 5 * 60_000;
const BACKOFF_BASE_MS = 5_000;
const BACKOFF_CAP_MS = 10 * 60_000;

/** Delay before retry number `attempts` (1-based): 5 s, 10 s, 20 s …, ±20 % jitter, never over 10 min. */
export function mailBackoffMs(attempts: number): number {
  const plain = BACKOFF_BASE_MS * 2 ** Math.min(20, Math.max(0, attempts - 1));
  return Math.min(BACKOFF_CAP_MS, Math.round(plain * (0.8 + 0.4 * Math.random())));
}

interface Row {
  id: number;
  message: string | null;
  attempts: number;
}

/** What `mail` lists, read the same way from either engine: no body, no key. */
export const PENDING_MAIL_SQL = `SELECT mail.id, signups.email AS "to", state, attempts, next_attempt_at, last_error, mail.created_at
  FROM mail LEFT JOIN signups USING (email_key) WHERE state != 'sent' ORDER BY mail.id`;

export interface PendingMailRow {
  id: number;
  to: string | null;
  state: MailState;
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  created_at: string;
}

export const toMailSummary = (row: PendingMailRow): MailSummary => ({
  id: row.id,
  to: row.to ?? '',
  state: row.state,
  attempts: row.attempts,
  nextAttemptAt: row.next_attempt_at,
  lastError: row.last_error,
  createdAt: row.created_at,
});

/** Every state counted, zeros included, from rows of `SELECT state, COUNT(*) AS n … GROUP BY state`. */
export function mailCounts(rows: { state: MailState; n: number }[]): Record<MailState, number> {
  const counts: Record<MailState, number> = { queued: 0, sent: 0, failed: 0, dead: 0 };
  for (const row of rows) counts[row.state] = Number(row.n);
  return counts;
}

export const toQueuedMail = (row: Row): QueuedMail => ({ id: row.id, message: JSON.parse(row.message!) as OutgoingMail, attempts: row.attempts });

/** The SQLite queue, plus the synchronous enqueue the invitation's transaction calls. */
export interface SqliteMailQueue extends MailQueue {
  /**
   * Queues a message for `emailKey`, claimed by the caller for one lease, so the caller sends it
   * first. Runs inside the transaction that creates what the message announces; QueueFullError
   * (which rolls that transaction back) past the configured size.
   */
  enqueueNow(emailKey: string, message: OutgoingMail): QueuedMail;
}

export function createMailQueue(db: Db, limits: Pick<QueueLimits, 'mailMaxItems' | 'maxAgeMs'>, now: () => number = Date.now): SqliteMailQueue {
  const insert = db.prepare(
    'INSERT INTO mail (email_key, message_id, message, next_attempt_at, lease_until, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const queuedCount = db.prepare("SELECT COUNT(*) AS n FROM mail WHERE state = 'queued'").pluck();
  // One statement: SQLite has a single writer, so no two claims can see the same free row.
  const claim = db.prepare(
    `UPDATE mail SET lease_until = @until WHERE id IN (
       SELECT id FROM mail WHERE state = 'queued' AND next_attempt_at <= @now AND lease_until <= @now
       ORDER BY next_attempt_at, id LIMIT @limit)
     RETURNING id, message, attempts`,
  );
  // Outcomes apply to queued rows only: a sender whose lease ran out, finishing after another
  // sender took the row over, cannot undo what the other recorded.
  const markSent = db.prepare(
    "UPDATE mail SET state = 'sent', message = NULL, attempts = attempts + 1, lease_until = 0, last_error = NULL, done_at = ? WHERE id = ? AND state = 'queued'",
  );
  const markFailed = db.prepare(
    "UPDATE mail SET state = 'failed', message = NULL, attempts = attempts + 1, lease_until = 0, last_error = ?, done_at = ? WHERE id = ? AND state = 'queued'",
  );
  const reschedule = db.prepare(
    `UPDATE mail SET attempts = @attempts, next_attempt_at = @due, lease_until = 0, last_error = @error,
       state = CASE WHEN created_at < @deadBefore THEN 'dead' ELSE 'queued' END
     WHERE id = @id AND state = 'queued'`,
  );
  const releaseClaim = db.prepare("UPDATE mail SET next_attempt_at = ?, lease_until = 0 WHERE id = ? AND state = 'queued'");
  const requeue = db.prepare("UPDATE mail SET state = 'queued', next_attempt_at = ?, lease_until = 0, created_at = ? WHERE id = ? AND state = 'dead'");
  const pending = db.prepare(PENDING_MAIL_SQL);
  const countByState = db.prepare('SELECT state, COUNT(*) AS n FROM mail GROUP BY state');
  const iso = () => new Date(now()).toISOString();

  return {
    enqueueNow(emailKey, message) {
      if ((queuedCount.get() as number) >= limits.mailMaxItems) throw new QueueFullError('mail');
      const at = now();
      const result = insert.run(emailKey, message.messageId, JSON.stringify(message), at, at + MAIL_LEASE_MS, new Date(at).toISOString());
      return { id: Number(result.lastInsertRowid), message, attempts: 0 };
    },

    async claim(limit) {
      const at = now();
      return (claim.all({ until: at + MAIL_LEASE_MS, now: at, limit }) as Row[]).map(toQueuedMail);
    },

    async sent(id) {
      return markSent.run(iso(), id).changes === 1;
    },

    async failed(id, error) {
      markFailed.run(error.slice(0, 500), iso(), id);
    },

    async retry(item, error) {
      const attempts = item.attempts + 1;
      const due = now() + mailBackoffMs(attempts);
      reschedule.run({ attempts, due, error: error.slice(0, 500), deadBefore: new Date(now() - limits.maxAgeMs).toISOString(), id: item.id });
      return due;
    },

    async release(id) {
      releaseClaim.run(now() + mailBackoffMs(1), id);
    },

    async pending() {
      return (pending.all() as PendingMailRow[]).map(toMailSummary);
    },

    async counts() {
      return mailCounts(countByState.all() as { state: MailState; n: number }[]);
    },

    async requeue(id) {
      return requeue.run(now(), iso(), id).changes === 1;
    },
  };
}
