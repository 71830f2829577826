// The invitation mail queue in PostgreSQL, with the SQLite queue's semantics (server/store/mail-queue.ts):
// a message is written in the transaction of the key it carries, claimed for a lease by one
// sender, cleared once sent or refused for good, and set aside as dead past the maximum age.
// Several replicas send from it: a claim skips rows another replica's claim has locked (SKIP
// LOCKED), so each message goes to one sender, and one whose sender died is claimed again once
// its lease runs out.
import { mailBackoffMs, mailCounts, MAIL_LEASE_MS, PENDING_MAIL_SQL, toMailSummary, toQueuedMail, type PendingMailRow } from '../mail-queue';
import { QueueFullError, type MailQueue, type MailState, type OutgoingMail, type QueuedMail, type QueueLimits } from '../types';
import type { Connection, Query } from './connection';

/**
 * Queues a message for `emailKey` inside the caller's transaction, claimed by the caller for one
 * lease. QueueFullError (which rolls the transaction back) once the queue holds `mailMaxItems`
 * queued messages. The count and the insert are one statement; two transactions enqueueing at
 * the same moment may both see room for one, so the bound can be passed by a few rows under
 * concurrency (it protects the disk, it is not a quota).
 */
export async function enqueueMail(query: Query, limits: Pick<QueueLimits, 'mailMaxItems'>, at: number, emailKey: string, message: OutgoingMail): Promise<QueuedMail> {
  const { rows } = await query<{ id: number }>(
    `INSERT INTO mail (email_key, message_id, message, next_attempt_at, lease_until, created_at)
     SELECT $1, $2, $3, $4, $5, $6 WHERE (SELECT COUNT(*) FROM mail WHERE state = 'queued') < $7
     RETURNING id`,
    [emailKey, message.messageId, JSON.stringify(message), at, at + MAIL_LEASE_MS, new Date(at).toISOString(), limits.mailMaxItems],
  );
  if (rows.length === 0) throw new QueueFullError('mail');
  return { id: rows[0].id, message, attempts: 0 };
}

export function createMailQueue(db: Connection, limits: Pick<QueueLimits, 'mailMaxItems' | 'maxAgeMs'>, now: () => number): MailQueue {
  const iso = () => new Date(now()).toISOString();

  return {
    async claim(limit) {
      const at = now();
      const { rows } = await db.query<{ id: number; message: string; attempts: number }>(
        `WITH claimed AS (
           UPDATE mail SET lease_until = $1 WHERE id IN (
             SELECT id FROM mail WHERE state = 'queued' AND next_attempt_at <= $2 AND lease_until <= $2
             ORDER BY next_attempt_at, id LIMIT $3 FOR UPDATE SKIP LOCKED)
           RETURNING id, message, attempts, next_attempt_at)
         SELECT id, message, attempts FROM claimed ORDER BY next_attempt_at, id`,
        [at + MAIL_LEASE_MS, at, limit],
      );
      return rows.map(toQueuedMail);
    },

    // Outcomes apply to queued rows only: a sender whose lease ran out, finishing after another
    // took the row over, cannot undo what the other recorded.
    async sent(id) {
      const result = await db.query(
        "UPDATE mail SET state = 'sent', message = NULL, attempts = attempts + 1, lease_until = 0, last_error = NULL, done_at = $1 WHERE id = $2 AND state = 'queued'",
        [iso(), id],
      );
      return result.rowCount === 1;
    },

    async failed(id, error) {
      await db.query(
        "UPDATE mail SET state = 'failed', message = NULL, attempts = attempts + 1, lease_until = 0, last_error = $1, done_at = $2 WHERE id = $3 AND state = 'queued'",
        [error.slice(0, 500), iso(), id],
      );
    },

    async retry(item, error) {
      const attempts = item.attempts + 1;
      const at = now();
      const due = at + mailBackoffMs(attempts);
      await db.query(
        `UPDATE mail SET attempts = $1, next_attempt_at = $2, lease_until = 0, last_error = $3,
           state = CASE WHEN created_at < $4 THEN 'dead' ELSE 'queued' END
         WHERE id = $5 AND state = 'queued'`,
        [attempts, due, error.slice(0, 500), new Date(at - limits.maxAgeMs).toISOString(), item.id],
      );
      return due;
    },

    async release(id) {
      await db.query("UPDATE mail SET next_attempt_at = $1, lease_until = 0 WHERE id = $2 AND state = 'queued'", [now() + mailBackoffMs(1), id]);
    },

    async pending() {
      return (await db.query<PendingMailRow>(PENDING_MAIL_SQL)).rows.map(toMailSummary);
    },

    async counts() {
      return mailCounts((await db.query<{ state: MailState; n: number }>('SELECT state, COUNT(*) AS n FROM mail GROUP BY state')).rows);
    },

    async requeue(id) {
      const result = await db.query("UPDATE mail SET state = 'queued', next_attempt_at = $1, lease_until = 0, created_at = $2 WHERE id = $3 AND state = 'dead'", [
        now(),
        iso(),
        id,
      ]);
      return result.rowCount === 1;
    },
  };
}
