// Durable queue of invitation mail. A message is written in the same transaction as the key it
// carries and stays here until the mail server has taken it. Whoever sends a message first claims
// it with a lease (the CLI right after inviting, otherwise the site's mail worker), so two senders
// never take the same message at once; a sender that dies leaves a lease that simply runs out,
// and the message is sent again from here. Once sent or refused for good, the stored message
// (which holds the key) is cleared: only its Message-ID, state and times remain.
import type { Db } from './db';

/** A message ready for the transport: everything the mail server gets, fixed when it is queued. */
export interface OutgoingMail {
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  messageId: string;
  /** ISO time for the Date header. */
  date: string;
}

export type MailState = 'queued' | 'sent' | 'failed';

export interface QueuedMail {
  id: number;
  message: OutgoingMail;
  attempts: number;
}

/** What `mail` lists: no body, no key. */
export interface MailSummary {
  id: number;
  to: string;
  state: MailState;
  attempts: number;
  nextAttemptAt: number;
  lastError: string | null;
  createdAt: string;
}

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

export function createMailQueue(db: Db, now: () => number = Date.now) {
  const insert = db.prepare(
    'INSERT INTO mail (email_key, message_id, message, next_attempt_at, lease_until, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  // One statement: SQLite has a single writer, so no two claims can see the same free row.
  const claim = db.prepare(
    `UPDATE mail SET lease_until = @until WHERE id IN (
       SELECT id FROM mail WHERE state = 'queued' AND next_attempt_at <= @now AND lease_until <= @now
       ORDER BY next_attempt_at, id LIMIT @limit)
     RETURNING id, message, attempts`,
  );
  const markSent = db.prepare(
    "UPDATE mail SET state = 'sent', message = NULL, attempts = attempts + 1, lease_until = 0, last_error = NULL, done_at = ? WHERE id = ? AND state = 'queued'",
  );
  const markFailed = db.prepare(
    "UPDATE mail SET state = 'failed', message = NULL, attempts = attempts + 1, lease_until = 0, last_error = ?, done_at = ? WHERE id = ? AND state = 'queued'",
  );
  // Outcomes apply to queued rows only: a sender whose lease ran out, finishing after another
  // sender took the row over, cannot undo what the other recorded.
  const reschedule = db.prepare("UPDATE mail SET attempts = ?, next_attempt_at = ?, lease_until = 0, last_error = ? WHERE id = ? AND state = 'queued'");
  const releaseClaim = db.prepare("UPDATE mail SET next_attempt_at = ?, lease_until = 0 WHERE id = ? AND state = 'queued'");
  const pending = db.prepare(
    `SELECT mail.id, signups.email AS "to", state, attempts, next_attempt_at, last_error, mail.created_at
     FROM mail LEFT JOIN signups USING (email_key) WHERE state != 'sent' ORDER BY mail.id`,
  );
  const countByState = db.prepare('SELECT state, COUNT(*) AS n FROM mail GROUP BY state');

  const toQueued = (row: Row): QueuedMail => ({ id: row.id, message: JSON.parse(row.message!) as OutgoingMail, attempts: row.attempts });

  return {
    /**
     * Queues a message for `emailKey`, claimed by the caller for one lease, so the caller sends it
     * first. Call inside the transaction that creates what the message announces.
     */
    enqueue(emailKey: string, message: OutgoingMail): QueuedMail {
      const at = now();
      const result = insert.run(emailKey, message.messageId, JSON.stringify(message), at, at + MAIL_LEASE_MS, new Date(at).toISOString());
      return { id: Number(result.lastInsertRowid), message, attempts: 0 };
    },

    /** Claims up to `limit` due messages for one lease. */
    claim(limit: number): QueuedMail[] {
      const at = now();
      return (claim.all({ until: at + MAIL_LEASE_MS, now: at, limit }) as Row[]).map(toQueued);
    },

    /** False when the row was no longer queued (another sender finished it, or it was erased). */
    sent(id: number): boolean {
      return markSent.run(new Date(now()).toISOString(), id).changes === 1;
    },

    /** Refused for good (a 5xx for this message): recorded, never retried. */
    failed(id: number, error: string): void {
      markFailed.run(error.slice(0, 500), new Date(now()).toISOString(), id);
    },

    /** Gives a claimed message back unsent (its sender knows the server is down): due after the first backoff. */
    release(id: number): void {
      releaseClaim.run(now() + mailBackoffMs(1), id);
    },

    /** A temporary failure: due again after the backoff; returns when. */
    retry(item: QueuedMail, error: string): number {
      const attempts = item.attempts + 1;
      const dueAt = now() + mailBackoffMs(attempts);
      reschedule.run(attempts, dueAt, error.slice(0, 500), item.id);
      return dueAt;
    },

    /** Queued and failed messages, oldest first. */
    pending(): MailSummary[] {
      return (pending.all() as Record<string, never>[]).map((row) => ({
        id: row.id,
        to: row.to ?? '',
        state: row.state,
        attempts: row.attempts,
        nextAttemptAt: row.next_attempt_at,
        lastError: row.last_error,
        createdAt: row.created_at,
      }));
    },

    counts(): Record<MailState, number> {
      const counts: Record<MailState, number> = { queued: 0, sent: 0, failed: 0 };
      for (const row of countByState.all() as { state: MailState; n: number }[]) counts[row.state] = row.n;
      return counts;
    },
  };
}

export type MailQueue = ReturnType<typeof createMailQueue>;
