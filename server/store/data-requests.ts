// A person's own data, for both engines (decision 0036): /privacy's requests for a data link,
// recorded with one insert whether or not the address is on the list and answered by the mail
// worker, as /leave's are (decision 0021); the links' tokens, kept only as hashes, each working
// once for DATA_LINK_VALID_HOURS; and what a link downloads: everything the store holds about the
// address, read in the transaction that spends the link and records it in the audit log.
import type { LinkRefusal } from '../../shared/address-links';
import { DATA_LINK_VALID_HOURS } from '../../shared/data-requests';
import type { Language } from '../../shared/i18n/languages';
import { deleteTokens, issueToken } from './address-links/tokens';
import type { AuditLog } from './audit-log';
import type { QueueLimits } from './limits';
import { answerRequests, recordRequest, type LinksMailed } from './link-requests';
import type { MailKind, MailQueueWriter, MailState, OutgoingMail } from './mail-queue';
import { hashSecret, newSecret, SECRET_SHAPE } from './secrets';
import { MAIL_AGAIN_AFTER_MS, STATE, type SignupState } from './signups';
import type { Queryable, Sql } from './sql';

export const DATA_LINK_VALID_MS = DATA_LINK_VALID_HOURS * 3_600_000;

/**
 * Data links per address and window (MAIL_AGAIN_AFTER_MS), as for leave links: a person may ask
 * again if a mail went astray, but nobody can make /privacy mail an address over and over.
 */
const DATA_LINKS_PER_WINDOW = 3;

/** The tokens a data-link mail carries: its download link, and every mail's leave link. */
export interface DataLinkTokens {
  data: string;
  leave: string;
}

/** The mail around the tokens, in the signup's language (server/mail/data-link.ts). */
export type ComposeDataMail = (
  to: string,
  tokens: DataLinkTokens,
  language: Language,
) => OutgoingMail;

/**
 * The signup as stored: every column of its row (columns added later included, with no change
 * here) but its internal key, and where it stands.
 */
export type HeldSignup = Record<string, unknown> & { email: string; state: SignupState };

/** A message sent or waiting for the address; mail sent before schema 16 has no kind or subject. */
export interface HeldMail {
  kind: MailKind | null;
  subject: string | null;
  state: MailState;
  created_at: string;
  /** When the mail server took it, or refused it for good. */
  done_at: string | null;
}

/** A webhook event about the address, and the endpoint it went (or is going) to. */
export interface HeldDelivery {
  endpoint_id: string;
  /** Null for an endpoint without a name, and for one removed since. */
  endpoint_name: string | null;
  /** The endpoint's URL; null once it was removed. The caller shows its scheme and host only. */
  endpoint_url: string | null;
  type: string;
  state: string;
  /** Whether the event's body carried the address. */
  holds_address: boolean;
  created_at: string;
  delivered_at: string | null;
}

/** Everything the store holds about one address. */
export interface HeldData {
  signup: HeldSignup;
  mail: HeldMail[];
  webhooks: HeldDelivery[];
}

/** `at`: when the data was read, by the store's clock. */
export type DataDownload =
  { ok: true; data: HeldData; at: number } | { ok: false; refusal: LinkRefusal };

export interface DataRequests {
  /**
   * Records that /privacy was asked for a data link to `email`, with one insert whether or not the
   * address is stored, so the answer costs the same either way. QueueFullError past the mail
   * queue's size (for every address alike).
   */
  ask(email: string): Promise<void>;
  /**
   * Answers the recorded requests (up to `limit`, oldest first) in one transaction that deletes
   * them: for an address on the waitlist, a new data link and a leave link with their mail, queued
   * and claimed for the caller, unless three went to it within the hour or the mail queue is full;
   * for any other, nothing. On PostgreSQL, requests another replica is answering are passed over.
   */
  mailLinks(limit: number, compose: ComposeDataMail): Promise<LinksMailed>;
  /**
   * What the store holds about the address a good data link belongs to, read in one transaction
   * that spends the link and records `audit` (which names no address) in the audit log; or why
   * the link does nothing, changing nothing.
   */
  download(
    token: string,
    audit: { account: string; action: string; client?: string },
  ): Promise<DataDownload>;
  /**
   * Deletes up to `limit` links past their time (used or not) and requests nobody answered within
   * DATA_LINK_VALID_MS (the site had no SITE_URL, say); how many rows went.
   */
  prune(limit: number): Promise<number>;
}

/** Columns of the signup's row the file leaves out: the store's own key, not the person's data. */
const INTERNAL_COLUMNS = new Set(['email_key']);

export function createDataRequests(
  sql: Sql,
  mail: MailQueueWriter,
  audit: Pick<AuditLog, 'recordIn'>,
  limits: Pick<QueueLimits, 'mailMaxItems'>,
  now: () => number,
): DataRequests {
  const iso = (at: number) => new Date(at).toISOString();

  /** What the store holds about `key`, read in the caller's transaction. */
  async function heldData(tx: Queryable, key: string): Promise<HeldData> {
    const { rows: signups } = await tx.query<Record<string, unknown>>(
      `SELECT *, ${STATE} AS state
       FROM signups
       WHERE email_key = $1`,
      [key],
    );
    const signup = Object.fromEntries(
      Object.entries(signups[0])
        .filter(([column]) => !INTERNAL_COLUMNS.has(column))
        // PostgreSQL reads a BIGSERIAL back as text.
        .map(([column, value]) => [column, column === 'id' ? Number(value) : value]),
    ) as HeldSignup;
    const { rows: mails } = await tx.query<HeldMail>(
      `SELECT kind, subject, state, created_at, done_at
       FROM mail
       WHERE email_key = $1
       ORDER BY id`,
      [key],
    );
    const { rows: deliveries } = await tx.query<HeldDelivery>(
      `SELECT webhook_deliveries.endpoint_id, webhook_endpoints.name AS endpoint_name,
         webhook_endpoints.url AS endpoint_url, type, state, holds_address,
         webhook_deliveries.created_at, delivered_at
       FROM webhook_deliveries
       LEFT JOIN webhook_endpoints ON webhook_endpoints.id = webhook_deliveries.endpoint_id
       WHERE email_key = $1
       ORDER BY webhook_deliveries.created_at, webhook_deliveries.id`,
      [key],
    );
    return {
      signup,
      mail: mails,
      webhooks: deliveries.map((row) => ({
        ...row,
        holds_address: Number(row.holds_address) === 1,
      })),
    };
  }

  return {
    async ask(email) {
      await recordRequest(sql, 'data_requests', email, now(), limits.mailMaxItems);
    },

    mailLinks: (limit, compose) =>
      answerRequests(sql, mail, 'data_requests', 'data-link', {
        limit,
        now,
        async answer(tx, signup, at) {
          const key = signup.email_key;
          const recent = await tx.query<{ n: number | string }>(
            `SELECT COUNT(*) AS n
             FROM data_tokens
             WHERE email_key = $1 AND created_at > $2`,
            [key, iso(at - MAIL_AGAIN_AFTER_MS)],
          );
          if (Number(recent.rows[0].n) >= DATA_LINKS_PER_WINDOW) return undefined;
          const data = newSecret();
          await tx.query(
            `INSERT INTO data_tokens (token_hash, email_key, created_at, expires_at)
             VALUES ($1, $2, $3, $4)`,
            [hashSecret(data), key, iso(at), iso(at + DATA_LINK_VALID_MS)],
          );
          const leave = await issueToken(tx, key, 'leave', at);
          return {
            message: compose(signup.email, { data, leave }, signup.language),
            undo: async () => {
              await deleteTokens(tx, 'data_tokens', [data]);
              await deleteTokens(tx, 'address_tokens', [leave]);
            },
          };
        },
      }),

    async download(token, entry) {
      if (!SECRET_SHAPE.test(token)) return { ok: false, refusal: 'malformed' };
      return sql.transaction(async (tx): Promise<DataDownload> => {
        const at = now();
        const { rows } = await tx.query<{
          email_key: string;
          expires_at: string;
          used_at: string | null;
        }>(
          `SELECT data_tokens.email_key, expires_at, used_at
           FROM data_tokens
           JOIN signups USING (email_key)
           WHERE token_hash = $1${sql.lockRows}`,
          [hashSecret(token)],
        );
        const found = rows[0];
        if (!found) return { ok: false, refusal: 'invalid' };
        if (found.used_at !== null) return { ok: false, refusal: 'spent' };
        if (found.expires_at <= iso(at)) return { ok: false, refusal: 'expired' };
        await tx.query(
          `UPDATE data_tokens
           SET used_at = $1
           WHERE token_hash = $2`,
          [iso(at), hashSecret(token)],
        );
        const data = await heldData(tx, found.email_key);
        await audit.recordIn(tx, { ...entry, addresses: 1 });
        return { ok: true, data, at };
      });
    },

    async prune(limit) {
      const at = now();
      const tokens = await sql.query(
        `DELETE FROM data_tokens
         WHERE token_hash IN (
           SELECT token_hash
           FROM data_tokens
           WHERE expires_at <= $1
           LIMIT $2
         )`,
        [iso(at), limit],
      );
      const requests = await sql.query(
        `DELETE FROM data_requests
         WHERE id IN (
           SELECT id
           FROM data_requests
           WHERE created_at <= $1
           LIMIT $2${sql.skipLocked}
         )`,
        [iso(at - DATA_LINK_VALID_MS), limit],
      );
      return tokens.rowCount + requests.rowCount;
    },
  };
}
