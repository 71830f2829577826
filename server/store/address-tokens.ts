// The links mailed to an address, for both engines: a confirmation link (double opt-in) and a leave
// link (every mail's List-Unsubscribe, and the one /leave mails on request). Each token is 192
// random bits, shown only in its mail and stored only as its SHA-256, for one address and one
// purpose. A confirmation link works for CONFIRM_WITHIN_HOURS and once; a leave link works as long
// as the address is stored (an unsubscribe link in an old invitation must still work, RFC 8058),
// and leaving erases it with everything else.
import { randomUUID } from 'node:crypto';
import type { LinkCheck, LinkPurpose, LinkRefusal, LinkUse } from '../../shared/address-links';
import { emailKey } from '../../shared/form-checks';
import { QueueFullError } from './errors';
import type { QueueLimits } from './limits';
import type { MailQueueWriter, OutgoingMail, QueuedMail } from './mail-queue';
import { MAIL_AGAIN_AFTER_MS, WAITING } from './signups';
import { placeholders, type Queryable, type Sql } from './sql';
import { hashSecret, newSecret, SECRET_SHAPE } from './secrets';
import { emitSignupEvent, SIGNUP_OF_EVENT, type SignupOfEvent } from './webhooks/signup-events';

/**
 * The links a confirmation mail carries: its confirmation token and a leave token, both shown only
 * in it.
 */
export interface ConfirmationTokens {
  confirm: string;
  leave: string;
}

/** The confirmation mail the mail worker writes for a signup that owes one (CONFIRM_SIGNUPS=on). */
export interface ConfirmationMail {
  /** The mail around the tokens (server/mail/confirmation.ts). */
  compose(to: string, tokens: ConfirmationTokens): OutgoingMail;
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

/** The welcome mail the mail worker writes for a signup that owes one (WELCOME_MAIL=on). */
export interface WelcomeMail {
  /** The mail around the leave token (server/mail/welcome.ts). */
  compose(to: string, leaveToken: string): OutgoingMail;
  /** As ConfirmationMail's: an address no mail can go to as written gets none. */
  canMail(address: string): boolean;
}

/** The links mailed to an address (confirm, leave): tokens kept only as hashes. */
export interface AddressLinks {
  /** What a token is worth for `purpose`, without using it. */
  check(purpose: LinkPurpose, token: string): Promise<LinkCheck>;
  /**
   * Confirms the address a confirmation link was mailed to, and spends the link. With `welcome`,
   * the address's first confirmation owes a welcome mail, recorded in the same transaction.
   */
  confirm(token: string, options?: { welcome?: boolean }): Promise<LinkUse>;
  /** The address a good leave link belongs to; the caller erases it (waitlist/remove.ts). */
  leaver(token: string): Promise<{ ok: true; email: string } | { ok: false; refusal: LinkRefusal }>;
  /**
   * Writes the confirmation mails owed (up to `limit`, oldest first): for each, new confirm and
   * leave tokens and the mail, queued and claimed for the caller, in one transaction that also
   * clears what was owed. On PostgreSQL, rows another replica is writing are passed over.
   */
  mailConfirmations(limit: number, mail: ConfirmationMail): Promise<QueuedMail[]>;
  /**
   * Writes the welcome mails owed (up to `limit`, oldest first) as mailConfirmations writes
   * confirmations, each with a new leave token. An address no longer waitlisted by then (invited,
   * undeliverable) is owed nothing more and gets none.
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
  mailLeaveLinks(
    limit: number,
    compose: (to: string, leaveToken: string) => OutgoingMail,
  ): Promise<LeaveLinksMailed>;
}

/** What one round of mailLeaveLinks did. */
export interface LeaveLinksMailed {
  mail: QueuedMail[];
  /** Requests answered (and deleted), mailed or not. */
  requests: number;
  /** Requests for a stored address that got no mail because the mail queue was full. */
  queueFull: number;
}

/**
 * Leave links per address and window (MAIL_AGAIN_AFTER_MS): every mail carries one, so a person
 * just invited can still ask for one, but nobody can make /leave mail an address over and over
 * (the per-IP limit alone would not stop many IPs). A confirmation mail goes at most once per
 * window.
 */
const LEAVE_LINKS_PER_WINDOW = 3;

interface TokenRow {
  email: string;
  email_key: string;
  expires_at: string | null;
  used_at: string | null;
  activated_at: string | null;
}

/** One token to issue; `validMs` undefined: it works as long as the address is stored. */
interface TokenRequest {
  emailKey: string;
  purpose: LinkPurpose;
  validMs?: number;
}

/**
 * New tokens, in the order asked, written in one statement (the mail worker issues a batch's at
 * once).
 */
export async function issueTokens(
  tx: Queryable,
  requests: TokenRequest[],
  at: number,
): Promise<string[]> {
  const tokens = requests.map(() => newSecret());
  const values = requests.flatMap(({ emailKey, purpose, validMs }, i) => [
    hashSecret(tokens[i]),
    emailKey,
    purpose,
    new Date(at).toISOString(),
    validMs === undefined ? null : new Date(at + validMs).toISOString(),
  ]);
  const rows = requests.map(
    (_, i) => `($${i * 5 + 1}, $${i * 5 + 2}, $${i * 5 + 3}, $${i * 5 + 4}, $${i * 5 + 5})`,
  );
  if (rows.length > 0)
    await tx.query(
      `INSERT INTO address_tokens (token_hash, email_key, purpose, created_at, expires_at)
       VALUES ${rows.join(', ')}`,
      values,
    );
  return tokens;
}

export async function issueToken(
  tx: Queryable,
  emailKey: string,
  purpose: LinkPurpose,
  at: number,
  validMs?: number,
): Promise<string> {
  return (await issueTokens(tx, [{ emailKey, purpose, validMs }], at))[0];
}

/** How many links of `purpose` went to the address within the last MAIL_AGAIN_AFTER_MS. */
async function linksMailedRecently(
  tx: Queryable,
  emailKey: string,
  purpose: LinkPurpose,
  at: number,
): Promise<number> {
  const { rows } = await tx.query<{ n: number }>(
    `SELECT COUNT(*) AS n
     FROM address_tokens
     WHERE email_key = $1 AND purpose = $2 AND created_at > $3`,
    [emailKey, purpose, new Date(at - MAIL_AGAIN_AFTER_MS).toISOString()],
  );
  return Number(rows[0].n);
}

/**
 * The token's row with its signup, or why it is worth nothing. `lock`: the signup's row, until the
 * transaction ends.
 */
async function lookUp(
  q: Queryable,
  purpose: LinkPurpose,
  token: string,
  at: number,
  lock = '',
): Promise<TokenRow | LinkRefusal> {
  if (!SECRET_SHAPE.test(token)) return 'malformed';
  const { rows } = await q.query<TokenRow>(
    `SELECT signups.email, signups.email_key, expires_at, used_at, activated_at
     FROM address_tokens
     JOIN signups USING (email_key)
     WHERE token_hash = $1 AND purpose = $2${lock}`,
    [hashSecret(token), purpose],
  );
  const row = rows[0];
  if (!row) return 'invalid';
  if (row.used_at !== null) return 'spent';
  if (row.expires_at !== null && row.expires_at <= new Date(at).toISOString()) return 'expired';
  return row;
}

export function createAddressLinks(
  sql: Sql,
  mail: MailQueueWriter,
  limits: Pick<QueueLimits, 'mailMaxItems'>,
  now: () => number,
): AddressLinks {
  return {
    async check(purpose, token) {
      const found = await lookUp(sql, purpose, token, now());
      if (typeof found === 'string') return { ok: false, refusal: found };
      return { ok: true, subscriptionActive: found.activated_at !== null };
    },

    async confirm(token, { welcome = false } = {}) {
      return sql.transaction(async (tx) => {
        const at = now();
        const found = await lookUp(tx, 'confirm', token, at, sql.lockRows);
        if (typeof found === 'string') return { ok: false, refusal: found };
        const time = new Date(at).toISOString();
        // Only the update that confirms owes the welcome and the event: an address confirmed
        // already (a second link, a replica racing under the row's lock) matches no row here.
        const confirmed = await tx.query<SignupOfEvent>(
          `UPDATE signups
           SET confirmed_at = $1, welcome_due_at = $3
           WHERE email_key = $2 AND confirmed_at IS NULL
           RETURNING ${SIGNUP_OF_EVENT}`,
          [time, found.email_key, welcome ? time : null],
        );
        if (confirmed.rows.length === 1)
          await emitSignupEvent(tx, 'signup.confirmed', confirmed.rows[0], at);
        // Every confirmation link of the address is spent: a second one mailed later confirms
        // nothing more.
        await tx.query(
          `UPDATE address_tokens
           SET used_at = $1
           WHERE email_key = $2 AND purpose = 'confirm' AND used_at IS NULL`,
          [time, found.email_key],
        );
        return { ok: true };
      });
    },

    async leaver(token) {
      const found = await lookUp(sql, 'leave', token, now());
      if (typeof found === 'string') return { ok: false, refusal: found };
      return { ok: true, email: found.email };
    },

    async mailConfirmations(limit, confirmation) {
      return sql.transaction(async (tx) => {
        const at = now();
        const { rows } = await tx.query<{ email: string; email_key: string }>(
          `SELECT email, email_key
           FROM signups
           WHERE confirmation_due_at IS NOT NULL
           ORDER BY confirmation_due_at
           LIMIT $1${sql.skipLocked}`,
          [limit],
        );
        if (rows.length === 0) return [];
        // A batch's statements at once, not per row: this runs beside the signups that owe the
        // mail.
        await tx.query(
          `UPDATE signups
           SET confirmation_due_at = NULL
           WHERE email_key IN (${placeholders(rows)})`,
          [...rows.map((row) => row.email_key)],
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
        for (const [i, { email, email_key: key }] of mailable.entries()) {
          queued.push(
            await mail.enqueue(
              tx,
              key,
              confirmation.compose(email, { confirm: tokens[2 * i], leave: tokens[2 * i + 1] }),
            ),
          );
        }
        return queued;
      });
    },

    async mailWelcomes(limit, welcome) {
      return sql.transaction(async (tx) => {
        const at = now();
        const { rows } = await tx.query<{ email: string; email_key: string; waiting: boolean }>(
          `SELECT email, email_key, CASE WHEN ${WAITING} THEN 1 ELSE 0 END AS waiting
           FROM signups
           WHERE welcome_due_at IS NOT NULL
           ORDER BY welcome_due_at
           LIMIT $1${sql.skipLocked}`,
          [limit],
        );
        if (rows.length === 0) return [];
        await tx.query(
          `UPDATE signups
           SET welcome_due_at = NULL
           WHERE email_key IN (${placeholders(rows)})`,
          [...rows.map((row) => row.email_key)],
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
        for (const [i, { email, email_key: key }] of mailable.entries())
          queued.push(await mail.enqueue(tx, key, welcome.compose(email, tokens[i])));
        return queued;
      });
    },

    async askLeaveLink(email) {
      const at = now();
      const { rowCount } = await sql.query(
        `INSERT INTO leave_requests (id, email_key, created_at)
         SELECT $1, $2, $3
         WHERE (SELECT COUNT(*) FROM leave_requests) < $4`,
        [randomUUID(), emailKey(email), new Date(at).toISOString(), limits.mailMaxItems],
      );
      if (rowCount === 0) throw new QueueFullError('mail');
    },

    async mailLeaveLinks(limit, compose) {
      return sql.transaction(async (tx) => {
        const at = now();
        // Taken and deleted in one statement: a request is answered once, by one replica, and a
        // replica that dies before its commit leaves it for the next round.
        const { rows: asked } = await tx.query<{ email_key: string }>(
          `DELETE FROM leave_requests
           WHERE id IN (
             SELECT id
             FROM leave_requests
             ORDER BY created_at, id
             LIMIT $1${sql.skipLocked}
           )
           RETURNING email_key`,
          [limit],
        );
        // Signups locked in one order by every replica, so two rounds never wait on each other.
        const keys = asked.map((row) => row.email_key).sort();
        const queued: QueuedMail[] = [];
        let queueFull = 0;
        for (const key of keys) {
          const signup = (
            await tx.query<{ email: string }>(
              `SELECT email
               FROM signups
               WHERE email_key = $1${sql.lockRows}`,
              [key],
            )
          ).rows[0];
          if (
            !signup ||
            (await linksMailedRecently(tx, key, 'leave', at)) >= LEAVE_LINKS_PER_WINDOW
          )
            continue;
          // A full queue inserts nothing and throws in JS alone: the transaction goes on.
          const token = await issueToken(tx, key, 'leave', at);
          try {
            queued.push(await mail.enqueue(tx, key, compose(signup.email, token)));
          } catch (err) {
            if (!(err instanceof QueueFullError)) throw err;
            await tx.query(
              `DELETE FROM address_tokens
               WHERE token_hash = $1`,
              [hashSecret(token)],
            );
            queueFull++;
          }
        }
        return { mail: queued, requests: asked.length, queueFull };
      });
    },
  };
}
