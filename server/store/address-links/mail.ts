// The mails that carry address links, for both engines: confirmations and welcomes, written by
// the mail worker for the signups they are due for, and leave links, asked for on /leave and
// answered by the worker. Each mail is queued in the transaction that issues its tokens.
import type { Language } from '../../../shared/i18n/languages';
import type { QueueLimits } from '../limits';
import { answerRequests, recordRequest, type LinksMailed } from '../link-requests';
import type { MailQueueWriter, OutgoingMail, QueuedMail } from '../mail-queue';
import { WAITING } from '../signups';
import { placeholders, type Queryable, type Sql } from '../sql';
import { deleteTokens, issueToken, issueTokens, linksMailedRecently } from './tokens';

/**
 * The links a confirmation mail carries: its confirmation token and a leave token, both shown only
 * in it.
 */
export interface ConfirmationTokens {
  confirm: string;
  leave: string;
}

/**
 * The mail around a leave token, in the signup's language (the page it last came from): a welcome
 * or the answer to /leave.
 */
export type ComposeLeaveMail = (to: string, leaveToken: string, language: Language) => OutgoingMail;

/** The confirmation mail the mail worker writes for a signup due one (CONFIRM_SIGNUPS=on). */
export interface ConfirmationMail {
  /** The mail around the tokens, in the signup's language (server/mail/confirmation.ts). */
  compose(to: string, tokens: ConfirmationTokens, language: Language): OutgoingMail;
  /**
   * False for an address no mail can go to as it is written (server/mail/message.ts, isMailable):
   * it is stored unconfirmed with no mail and no link, and erased when a link would have expired.
   */
  canMail(address: string): boolean;
  /**
   * How long the confirmation link works (CONFIRM_WITHIN_HOURS); the address is erased once the
   * last one has expired.
   */
  validMs: number;
}

/** The welcome mail the mail worker writes for a signup that is due one (WELCOME_MAIL=on). */
export interface WelcomeMail {
  /** The mail around the leave token (server/mail/welcome.ts). */
  compose: ComposeLeaveMail;
  /** As ConfirmationMail's: an address no mail can go to as written gets none. */
  canMail(address: string): boolean;
}

/** The mails that carry links: written by the mail worker, leave links asked for on /leave. */
export interface LinkMail {
  /**
   * Writes the confirmation mails due (up to `limit`, oldest first): for each, new confirm and
   * leave tokens and the mail, queued and claimed for the caller, in one transaction that also
   * clears what was due. On PostgreSQL, rows another replica is writing are passed over.
   */
  mailConfirmations(limit: number, mail: ConfirmationMail): Promise<QueuedMail[]>;
  /**
   * Writes the welcome mails due (up to `limit`, oldest first) as mailConfirmations writes
   * confirmations, each with a new leave token. An address no longer waitlisted by then (invited,
   * undeliverable) is due nothing more and gets none.
   */
  mailWelcomes(limit: number, mail: WelcomeMail): Promise<QueuedMail[]>;
  /**
   * Records that /leave was asked for a link to `email`, with one insert whether or not the
   * address is stored, so the answer costs the same either way. QueueFullError past the mail
   * queue's size (for every address alike).
   */
  askLeaveLink(email: string): Promise<void>;
  /**
   * Answers the recorded requests (up to `limit`, oldest first) in one transaction that deletes
   * them: for an address on the waitlist, a new leave link and its mail, queued and claimed for the
   * caller, unless three went to it within the hour or the mail queue is full (`queueFull`); for
   * any other, nothing. On PostgreSQL, requests another replica is answering are passed over.
   */
  mailLeaveLinks(limit: number, compose: ComposeLeaveMail): Promise<LeaveLinksMailed>;
}

/** What one round of mailLeaveLinks did. */
export type LeaveLinksMailed = LinksMailed;

/**
 * Leave links per address and window (MAIL_AGAIN_AFTER_MS): every mail carries one, so a person
 * just invited can still ask for one, but nobody can make /leave mail an address over and over
 * (the per-IP limit alone would not stop many IPs). A confirmation mail goes at most once per
 * window.
 */
const LEAVE_LINKS_PER_WINDOW = 3;

export function createLinkMail(
  sql: Sql,
  mail: MailQueueWriter,
  limits: Pick<QueueLimits, 'mailMaxItems'>,
  now: () => number,
): LinkMail {
  /**
   * Up to `limit` signups a mail is due for (`due` set), oldest first, with `due` cleared in the
   * caller's transaction. A batch's statements at once, not per row: this runs beside the signups
   * that are due the mail. On PostgreSQL, rows another replica's round holds are passed over.
   */
  async function takeDue<R extends { email_key: string }>(
    tx: Queryable,
    due: 'confirmation_due_at' | 'welcome_due_at',
    columns: string,
    limit: number,
  ): Promise<R[]> {
    const { rows } = await tx.query<R>(
      `SELECT ${columns}
       FROM signups
       WHERE ${due} IS NOT NULL
       ORDER BY ${due}
       LIMIT $1${sql.skipLocked}`,
      [limit],
    );
    if (rows.length > 0)
      await tx.query(
        `UPDATE signups
         SET ${due} = NULL
         WHERE email_key IN (${placeholders(rows)})`,
        rows.map((row) => row.email_key),
      );
    return rows;
  }

  return {
    async mailConfirmations(limit, confirmation) {
      return sql.transaction(async (tx) => {
        const at = now();
        const rows = await takeDue<{ email: string; email_key: string; language: Language }>(
          tx,
          'confirmation_due_at',
          'email, email_key, language',
          limit,
        );
        // Never mailed (it would go to another address); it expires like any unconfirmed one.
        const mailable = rows.filter((row) => confirmation.canMail(row.email));
        const tokens = await issueTokens(
          tx,
          mailable.flatMap(({ email_key: key }) => [
            { emailKey: key, purpose: 'confirm' as const, validMs: confirmation.validMs },
            { emailKey: key, purpose: 'leave' as const },
          ]),
          at,
        );
        const queued: QueuedMail[] = [];
        for (const [i, { email, email_key: key, language }] of mailable.entries()) {
          const links = { confirm: tokens[2 * i], leave: tokens[2 * i + 1] };
          queued.push(
            await mail.enqueue(tx, key, confirmation.compose(email, links, language), {
              kind: 'confirmation',
            }),
          );
        }
        return queued;
      });
    },

    async mailWelcomes(limit, welcome) {
      return sql.transaction(async (tx) => {
        const at = now();
        const rows = await takeDue<{
          email: string;
          email_key: string;
          language: Language;
          waiting: boolean;
        }>(
          tx,
          'welcome_due_at',
          `email, email_key, language, CASE WHEN ${WAITING} THEN 1 ELSE 0 END AS waiting`,
          limit,
        );
        // Invited before its welcome was written: "your invitation comes later" would be wrong.
        const mailable = rows.filter(
          (row) => Number(row.waiting) === 1 && welcome.canMail(row.email),
        );
        const tokens = await issueTokens(
          tx,
          mailable.map(({ email_key: key }) => ({ emailKey: key, purpose: 'leave' as const })),
          at,
        );
        const queued: QueuedMail[] = [];
        for (const [i, { email, email_key: key, language }] of mailable.entries())
          queued.push(
            await mail.enqueue(tx, key, welcome.compose(email, tokens[i], language), {
              kind: 'welcome',
            }),
          );
        return queued;
      });
    },

    async askLeaveLink(email) {
      await recordRequest(sql, 'leave_requests', email, now(), limits.mailMaxItems);
    },

    mailLeaveLinks: (limit, compose) =>
      answerRequests(sql, mail, 'leave_requests', 'leave-link', {
        limit,
        now,
        async answer(tx, signup, at) {
          const key = signup.email_key;
          if ((await linksMailedRecently(tx, key, 'leave', at)) >= LEAVE_LINKS_PER_WINDOW)
            return undefined;
          const token = await issueToken(tx, key, 'leave', at);
          return {
            message: compose(signup.email, token, signup.language),
            undo: () => deleteTokens(tx, 'address_tokens', [token]),
          };
        },
      }),
  };
}
