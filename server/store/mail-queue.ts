// Durable queue of the site's mail (invitations, confirmations, leave links), for both engines. A
// message is written in the same transaction as the key or link it carries and stays here until
// the mail server has taken it. Whoever sends a message first claims it with a lease (the CLI
// right after inviting, otherwise a mail worker on any replica), so two senders never take the
// same message at once; a sender that dies leaves a lease that simply runs out, and the message is
// sent again from here. Once sent or refused for good, the stored message (which holds the key or
// link) is cleared: only its Message-ID, state and times remain. A message still failing past the
// maximum age is set aside as dead, body kept, until the operator sends it again (mail retry <id>).
import { QueueFullError } from './errors';
import { backoffMs, claimStatement, enqueueStatement, Leases } from './leases';
import { DEFAULT_QUEUE_LIMITS, type QueueLimits } from './limits';
import type { Queryable, Sql } from './sql';
import { emitSignupEvent, SIGNUP_OF_EVENT, type SignupOfEvent } from './webhooks/signup-events';

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
  /**
   * Further header fields, written as given (List-Unsubscribe and List-Unsubscribe-Post, RFC 8058).
   */
  headers?: Record<string, string>;
}

export interface QueuedMail {
  id: number;
  message: OutgoingMail;
  attempts: number;
}

export type MailState = 'queued' | 'sent' | 'failed' | 'dead';

/**
 * What a message is, kept with its subject once it is sent and its body cleared, so a person's
 * data can name the mail they were sent (data-requests.ts).
 */
export type MailKind = 'invitation' | 'confirmation' | 'welcome' | 'leave-link' | 'data-link';

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

export interface MailQueue {
  /** How long a claim lasts unless renewed, ms (QueueLimits.mailLeaseMs). */
  readonly leaseMs: number;
  /** Claims up to `limit` due messages for one lease. */
  claim(limit: number): Promise<QueuedMail[]>;
  /**
   * Extends this instance's claim on a message by a whole lease from now, while its send goes on.
   * False when it holds no claim on it, or another sender has claimed it since (leases.ts).
   */
  renew(id: number): Promise<boolean>;
  /**
   * False when the row was no longer queued (another sender finished it, or it was erased) or
   * another sender has claimed it since this instance's lease ran out (leases.ts).
   */
  sent(id: number): Promise<boolean>;
  /** False once the message is erased (its address left or was removed) or never was. */
  exists(id: number): Promise<boolean>;
  /**
   * Refused for good (a 5xx for this message): recorded, never retried. `undeliverable`: the server
   * refused the recipient itself (a 5xx to RCPT TO), so its signup is marked undeliverable too.
   */
  failed(id: number, error: string, undeliverable?: boolean): Promise<void>;
  /**
   * A temporary failure: due again after the backoff (or dead past the maximum age); returns when.
   */
  retry(item: QueuedMail, error: string): Promise<number>;
  /** Gives a claimed message back unsent (its sender knows the server is down). */
  release(id: number): Promise<void>;
  /** Queued, failed and dead messages, oldest first. */
  pending(): Promise<MailSummary[]>;
  counts(): Promise<Record<MailState, number>>;
  /** Makes a dead message queued again, due now. False if there is no dead message with that id. */
  requeue(id: number): Promise<boolean>;
}

/** The mail lease where no setting says otherwise (leases.ts derives it from the send timeout). */
export const MAIL_LEASE_MS = DEFAULT_QUEUE_LIMITS.mailLeaseMs;
const BACKOFF_BASE_MS = 5_000;
const BACKOFF_CAP_MS = 10 * 60_000;

/**
 * Delay before retry number `attempts` (1-based): 5 s, 10 s, 20 s …, ±20 % jitter, never over 10
 * min.
 */
export const mailBackoffMs = (attempts: number) =>
  backoffMs(attempts, BACKOFF_BASE_MS, BACKOFF_CAP_MS);

interface ClaimedRow {
  id: number;
  message: string;
  attempts: number;
  next_attempt_at: number;
}

interface PendingRow {
  id: number;
  to: string | null;
  state: MailState;
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  created_at: string;
}

const toMailSummary = (row: PendingRow): MailSummary => ({
  id: Number(row.id),
  to: row.to ?? '',
  state: row.state,
  attempts: row.attempts,
  nextAttemptAt: Number(row.next_attempt_at),
  lastError: row.last_error,
  createdAt: row.created_at,
});

/** What an invitation's transaction writes into the queue (subscriptions.ts). */
export interface MailQueueWriter {
  /**
   * Queues a message of `kind` for `emailKey`, claimed by the caller for one lease, so the caller
   * sends it first; with `claimed: false` it is due at once for the mail worker. QueueFullError
   * (which rolls the transaction back) past the configured size.
   */
  enqueue(
    tx: Queryable,
    emailKey: string,
    message: OutgoingMail,
    options: { kind: MailKind; claimed?: boolean },
  ): Promise<QueuedMail>;
  /**
   * Drops the address's messages still waiting: an earlier invitation carries a key that is now
   * revoked and must not go out. One a sender holds right now (its lease runs) is already on its
   * way and cannot be recalled.
   */
  dropWaiting(tx: Queryable, emailKey: string, at: number): Promise<void>;
  /**
   * Sets the address's messages still queued aside as failed, with `reason`: its address will
   * take no mail (a provider's bounce). Kept, so `waitlist mail` says why they never went. Unlike
   * dropWaiting, one a sender has claimed is set aside too (its sender's record of it then fails).
   */
  failWaiting(tx: Queryable, emailKey: string, reason: string, at: number): Promise<void>;
}

/** An SMTP reply's code and enhanced status ("550 5.1.1") out of an error's text, or null. */
export function replyCode(error: string): string | null {
  return /\b[45]\d\d(?:[ -][245]\.\d{1,3}\.\d{1,3})?/.exec(error)?.[0].replace('-', ' ') ?? null;
}

export function createMailQueue(
  sql: Sql,
  limits: Pick<QueueLimits, 'mailMaxItems' | 'maxAgeMs' | 'mailLeaseMs'>,
  now: () => number,
): MailQueue & MailQueueWriter {
  const leases = new Leases();
  const iso = () => new Date(now()).toISOString();
  const deadBefore = () => new Date(now() - limits.maxAgeMs).toISOString();

  return {
    leaseMs: limits.mailLeaseMs,

    // The count and the insert are one statement: exact under SQLite's single writer; on
    // PostgreSQL two transactions enqueueing at the same moment may both see room for one, so the
    // bound can be passed by a few rows (it protects the disk, it is not a quota).
    async enqueue(tx, emailKey, message, { kind, claimed = true }) {
      const at = now();
      const leaseUntil = claimed ? at + limits.mailLeaseMs : 0;
      const { rows } = await tx.query<{ id: number }>(
        enqueueStatement('mail', 'queued', [
          'email_key',
          'message_id',
          'message',
          'next_attempt_at',
          'lease_until',
          'created_at',
          'kind',
          'subject',
        ]),
        [
          emailKey,
          message.messageId,
          JSON.stringify(message),
          at,
          leaseUntil,
          new Date(at).toISOString(),
          kind,
          message.subject,
          limits.mailMaxItems,
        ],
      );
      if (rows.length === 0) throw new QueueFullError('mail');
      const id = Number(rows[0].id);
      if (claimed) leases.hold([id], leaseUntil);
      return { id, message, attempts: 0 };
    },

    async dropWaiting(tx, emailKey, at) {
      await tx.query(
        `DELETE FROM mail
         WHERE email_key = $1 AND state = 'queued' AND lease_until <= $2`,
        [emailKey, at],
      );
    },

    async failWaiting(tx, emailKey, reason, at) {
      await tx.query(
        `UPDATE mail
         SET state = 'failed', message = NULL, last_error = $1, done_at = $2
         WHERE email_key = $3 AND state = 'queued'`,
        [reason, new Date(at).toISOString(), emailKey],
      );
    },

    async claim(limit) {
      const at = now();
      const leaseUntil = at + limits.mailLeaseMs;
      const { rows } = await sql.query<ClaimedRow>(
        claimStatement(sql, 'mail', 'queued', 'id, message, attempts, next_attempt_at'),
        [leaseUntil, at, limit],
      );
      rows.sort((a, b) => a.next_attempt_at - b.next_attempt_at || a.id - b.id);
      leases.hold(
        rows.map((row) => Number(row.id)),
        leaseUntil,
      );
      return rows.map((row) => ({
        id: Number(row.id),
        message: JSON.parse(row.message) as OutgoingMail,
        attempts: row.attempts,
      }));
    },

    // The new lease_until is the claim's new fencing token: larger than the one it replaces, and
    // written only where the row still holds that one.
    async renew(id) {
      const held = leases.held(id);
      if (held === undefined) return false;
      const leaseUntil = Math.max(now() + limits.mailLeaseMs, held + 1);
      const { rowCount } = await sql.query(
        `UPDATE mail
         SET lease_until = $1
         WHERE id = $2 AND state = 'queued' AND lease_until = $3`,
        [leaseUntil, id, held],
      );
      if (rowCount === 1) leases.hold([id], leaseUntil);
      else leases.end(id, false);
      return rowCount === 1;
    },

    async sent(id) {
      const fence = leases.fence(id, '$3', now());
      const result = await sql.query(
        `UPDATE mail
         SET state = 'sent', message = NULL, attempts = attempts + 1, lease_until = 0,
           last_error = NULL, done_at = $1
         WHERE id = $2 AND state = 'queued' AND ${fence.where}`,
        [iso(), id, fence.value],
      );
      leases.end(id, result.rowCount === 1);
      return result.rowCount === 1;
    },

    async exists(id) {
      const { rows } = await sql.query(
        `SELECT 1 AS one
         FROM mail
         WHERE id = $1`,
        [id],
      );
      return rows.length > 0;
    },

    async failed(id, error, undeliverable = false) {
      const fence = leases.fence(id, '$4', now());
      const recorded = await sql.transaction(async (tx) => {
        const time = iso();
        const { rows } = await tx.query<{ email_key: string }>(
          `UPDATE mail
           SET state = 'failed', message = NULL, attempts = attempts + 1, lease_until = 0,
             last_error = $1, done_at = $2
           WHERE id = $3 AND state = 'queued' AND ${fence.where}
           RETURNING email_key`,
          [error.slice(0, 500), time, id, fence.value],
        );
        if (rows.length === 1 && undeliverable) {
          // The event once, when the address becomes undeliverable: a second bounce changes
          // nothing a receiver keeps.
          const { rows: before } = await tx.query<{ undeliverable_at: string | null }>(
            `SELECT undeliverable_at
             FROM signups
             WHERE email_key = $1`,
            [rows[0].email_key],
          );
          // Who found it and the server's reply code, never its text (it may quote the address).
          const { rows: signup } = await tx.query<SignupOfEvent>(
            `UPDATE signups
             SET undeliverable_at = $1, undeliverable_by = 'smtp', undeliverable_detail = $3
             WHERE email_key = $2
             RETURNING ${SIGNUP_OF_EVENT}`,
            [time, rows[0].email_key, replyCode(error)],
          );
          if (signup.length === 1 && before[0]?.undeliverable_at === null)
            await emitSignupEvent(tx, 'address.undeliverable', signup[0], Date.parse(time));
        }
        return rows.length === 1;
      });
      leases.end(id, recorded);
    },

    async retry(item, error) {
      const attempts = item.attempts + 1;
      const due = now() + mailBackoffMs(attempts);
      const fence = leases.fence(item.id, '$6', now());
      const { rowCount } = await sql.query(
        `UPDATE mail
         SET attempts = $1, next_attempt_at = $2, lease_until = 0, last_error = $3,
           state = CASE WHEN created_at < $4 THEN 'dead' ELSE 'queued' END
         WHERE id = $5 AND state = 'queued' AND ${fence.where}`,
        [attempts, due, error.slice(0, 500), deadBefore(), item.id, fence.value],
      );
      leases.end(item.id, rowCount === 1);
      return due;
    },

    async release(id) {
      const fence = leases.fence(id, '$3', now());
      const { rowCount } = await sql.query(
        `UPDATE mail
         SET next_attempt_at = $1, lease_until = 0
         WHERE id = $2 AND state = 'queued' AND ${fence.where}`,
        [now() + mailBackoffMs(1), id, fence.value],
      );
      leases.end(id, rowCount === 1);
    },

    async pending() {
      const { rows } = await sql.query<PendingRow>(
        `SELECT mail.id, signups.email AS "to", state, attempts, next_attempt_at, last_error,
           mail.created_at
         FROM mail
         LEFT JOIN signups USING (email_key)
         WHERE state != 'sent'
         ORDER BY mail.id`,
      );
      return rows.map(toMailSummary);
    },

    async counts() {
      const counts: Record<MailState, number> = { queued: 0, sent: 0, failed: 0, dead: 0 };
      const { rows } = await sql.query<{ state: MailState; n: number }>(
        `SELECT state, COUNT(*) AS n
         FROM mail
         GROUP BY state`,
      );
      for (const row of rows) counts[row.state] = Number(row.n);
      return counts;
    },

    async requeue(id) {
      const result = await sql.query(
        `UPDATE mail
         SET state = 'queued', next_attempt_at = $1, lease_until = 0, created_at = $2
         WHERE id = $3 AND state = 'dead'`,
        [now(), iso(), id],
      );
      return result.rowCount === 1;
    },
  };
}
