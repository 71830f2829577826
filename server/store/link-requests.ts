// Requests for a mailed link, for both engines: /leave's (leave_requests) and /privacy's
// (data_requests). A form records one with one insert whether or not the address is stored, so its
// answer costs the same either way (decision 0021); the mail worker's round takes a batch and
// deletes it in the transaction that answers it, mailing a link to each address on the list.
import { randomUUID } from 'node:crypto';
import { emailKey } from '../../shared/form-checks';
import type { Language } from '../../shared/i18n/languages';
import { QueueFullError } from './errors';
import type { MailKind, MailQueueWriter, OutgoingMail, QueuedMail } from './mail-queue';
import type { Queryable, Sql } from './sql';

export type RequestTable = 'leave_requests' | 'data_requests';

/** What one round of answering requests did. */
export interface LinksMailed {
  mail: QueuedMail[];
  /** Requests answered (and deleted), mailed or not. */
  requests: number;
  /** Requests for a stored address that got no mail because the mail queue was full. */
  queueFull: number;
}

/** The signup a request names, locked until the round's transaction ends. */
export interface RequestedSignup {
  email_key: string;
  email: string;
  language: Language;
}

/**
 * A link for the signup and the mail that carries it, or undefined when none is due (too many went
 * out lately). `undo`: deletes the link again, when the mail queue is full.
 */
export type AnswerRequest = (
  tx: Queryable,
  signup: RequestedSignup,
  at: number,
) => Promise<{ message: OutgoingMail; undo: () => Promise<void> } | undefined>;

/**
 * Records a request for `email` in `table`. QueueFullError past `max` requests waiting (the mail
 * queue's size), for every address alike.
 */
export async function recordRequest(
  sql: Queryable,
  table: RequestTable,
  email: string,
  at: number,
  max: number,
): Promise<void> {
  const { rowCount } = await sql.query(
    `INSERT INTO ${table} (id, email_key, created_at)
     SELECT $1, $2, $3
     WHERE (SELECT COUNT(*) FROM ${table}) < $4`,
    [randomUUID(), emailKey(email), new Date(at).toISOString(), max],
  );
  if (rowCount === 0) throw new QueueFullError('mail');
}

/**
 * Answers up to `limit` requests of `table`, oldest first, in one transaction that deletes them:
 * for each address on the list, `answer`'s mail is queued as `kind`, claimed for the caller; for
 * any other, or one undeliverable (no mail goes to it, decision 0038), nothing. On PostgreSQL,
 * requests another replica is answering are passed over.
 */
export function answerRequests(
  sql: Sql,
  mail: MailQueueWriter,
  table: RequestTable,
  kind: MailKind,
  options: { limit: number; now: () => number; answer: AnswerRequest },
): Promise<LinksMailed> {
  return sql.transaction(async (tx) => {
    const at = options.now();
    // Taken and deleted in one statement: a request is answered once, by one replica, and a
    // replica that dies before its commit leaves it for the next round.
    const { rows: asked } = await tx.query<{ email_key: string }>(
      `DELETE FROM ${table}
       WHERE id IN (
         SELECT id
         FROM ${table}
         ORDER BY created_at, id
         LIMIT $1${sql.skipLocked}
       )
       RETURNING email_key`,
      [options.limit],
    );
    // Signups locked in one order by every replica, so two rounds never wait on each other.
    const keys = asked.map((row) => row.email_key).sort();
    const queued: QueuedMail[] = [];
    let queueFull = 0;
    for (const key of keys) {
      const signup = (
        await tx.query<RequestedSignup>(
          `SELECT email_key, email, language
           FROM signups
           WHERE email_key = $1 AND undeliverable_at IS NULL${sql.lockRows}`,
          [key],
        )
      ).rows[0];
      const answered = signup && (await options.answer(tx, signup, at));
      if (!answered) continue;
      // A full queue inserts nothing and throws in JS alone: the transaction goes on.
      try {
        queued.push(await mail.enqueue(tx, key, answered.message, { kind }));
      } catch (err) {
        if (!(err instanceof QueueFullError)) throw err;
        await answered.undo();
        queueFull++;
      }
    }
    return { mail: queued, requests: asked.length, queueFull };
  });
}
