// What mail providers report after they accepted our mail, applied once whatever they retry
// (decision 0038). A notice is applied in one transaction that holds its signup's row lock and
// records the provider's id for it, so a notice delivered twice, or to two replicas at once, finds
// its id there the second time and changes nothing:
// - permanent: the address is undeliverable (never mailed again: invite, the due confirmation and
//   welcome mails and the queued mail all pass it over), with the provider and its words for it;
//   `address.undeliverable` fires the first time only.
// - transient: counted against the address; the third within 7 days makes it undeliverable.
// - complaint: the person is erased as a leave erases them (erasure.ts), suppressed for imports,
//   `signup.left` says `complained`, and the audit log records it without the address.
// An address not on the list is answered alike and nothing is stored, not even the id. The ids
// are kept 30 days, transient bounces 7 (sweep).
import { emailKey } from '../../shared/form-checks';
import type { BounceKind, BounceNotice, BounceProvider } from '../bounces/notices';
import type { AuditLog } from './audit-log';
import { eraseWithin, type Erased } from './erasure';
import type { MailQueueWriter } from './mail-queue';
import type { Queryable, Sql } from './sql';
import type { AddressHash } from './suppressions';
import { emitSignupEvent, SIGNUP_OF_EVENT, type SignupOfEvent } from './webhooks/signup-events';

/** What applying a notice did. */
export type BounceOutcome =
  /** The address is undeliverable now (a permanent bounce, or the third transient one). */
  | { kind: 'undeliverable' }
  /** A transient bounce counted; the address is still mailed. */
  | { kind: 'counted' }
  /** Already undeliverable: the notice is recorded, nothing else changes. */
  | { kind: 'already-undeliverable' }
  /** A complaint: the address is erased; `mailIds` for the caller to delete their .eml copies. */
  | { kind: 'left'; mailIds: number[] }
  /** This notice was applied before. */
  | { kind: 'duplicate' }
  /** The address is not on the list (or the provider reports nothing that changes it). */
  | { kind: 'nothing' };

/** Notices and mail sent over a period, for the dashboard's rates. */
export interface BounceCounts {
  /** Mail the mail server took over the period (every kind: invitations, confirmations, …). */
  sent: number;
  permanent: number;
  transient: number;
  complaint: number;
}

export interface Bounces {
  /** Applies one notice of `provider`, once: the second time its id comes it is a duplicate. */
  apply(provider: BounceProvider, notice: BounceNotice): Promise<BounceOutcome>;
  /**
   * Keeps Mailgun's signature token with the event it signed. True when it is new, or kept with
   * this same event (the event sent again); false when it signed another event (a replay).
   */
  claimToken(provider: BounceProvider, token: string, noticeId: string): Promise<boolean>;
  /** What the providers reported, and the mail sent, since `since` (ISO 8601). */
  counts(since: string): Promise<BounceCounts>;
  /** Forgets ids and tokens past 30 days and transient bounces past 7; how many rows went. */
  sweep(): Promise<number>;
}

/** How long a notice's id (and a token) is kept, so a retry within it is applied once. */
export const NOTICE_DAYS = 30;
/** Transient bounces within this many days count toward an undeliverable address. */
export const TRANSIENT_DAYS = 7;
/** How many transient bounces within TRANSIENT_DAYS make an address undeliverable. */
export const TRANSIENTS_UNDELIVERABLE = 3;

const DAY_MS = 24 * 60 * 60_000;

/** Who recorded a complaint in the audit log: the provider, never the address. */
const complaintAudit = (provider: BounceProvider) => ({
  account: `(${provider} complaint)`,
  action: 'complaint: left',
});

export function createBounces(
  sql: Sql,
  hashAddress: AddressHash,
  audit: Pick<AuditLog, 'recordIn'>,
  mail: Pick<MailQueueWriter, 'failWaiting'>,
  now: () => number,
): Bounces {
  /**
   * Marks the locked signup undeliverable unless it is already, with who found it and their
   * words; fires `address.undeliverable`, and fails the mail still queued for it.
   */
  async function markUndeliverable(
    tx: Queryable,
    key: string,
    provider: BounceProvider,
    kind: BounceKind,
    detail: string,
    at: number,
  ): Promise<void> {
    const time = new Date(at).toISOString();
    const { rows } = await tx.query<SignupOfEvent>(
      `UPDATE signups
       SET undeliverable_at = $1, undeliverable_by = $2, undeliverable_detail = $3,
         confirmation_due_at = NULL, welcome_due_at = NULL
       WHERE email_key = $4 AND undeliverable_at IS NULL
       RETURNING ${SIGNUP_OF_EVENT}`,
      [time, provider, detail.slice(0, 200), key],
    );
    if (rows.length === 0) return;
    await mail.failWaiting(tx, key, `not sent: the address bounced (${provider})`, at);
    await emitSignupEvent(tx, 'address.undeliverable', rows[0], at, {
      reason: 'bounced',
      provider,
      bounce: kind,
    });
  }

  return {
    async apply(provider, notice) {
      if (notice.kind === 'ignored') return { kind: 'nothing' };
      const { kind, detail } = notice;
      const key = emailKey(notice.email);
      // Hashed before the transaction, as erasure does: the key may need a read of its own.
      const hash = kind === 'complaint' ? await hashAddress(notice.email) : '';
      return sql.transaction(async (tx): Promise<BounceOutcome> => {
        const at = now();
        const time = new Date(at).toISOString();
        const { rows: signup } = await tx.query<{ undeliverable_at: string | null }>(
          `SELECT undeliverable_at
           FROM signups
           WHERE email_key = $1${sql.lockRows}`,
          [key],
        );
        if (signup.length === 0) return { kind: 'nothing' };
        const { rowCount } = await tx.query(
          `INSERT INTO bounce_notices (provider, notice_id, kind, received_at)
           VALUES ($1, $2, $3, $4)
           ON CONFLICT (provider, notice_id) DO NOTHING`,
          [provider, notice.id, kind, time],
        );
        if (rowCount === 0) return { kind: 'duplicate' };

        if (kind === 'complaint') {
          const erased: Erased = await eraseWithin(tx, sql, notice.email, {
            hash,
            at,
            options: { reason: 'complained' },
          });
          await audit.recordIn(tx, { ...complaintAudit(provider), addresses: 1 });
          return { kind: 'left', mailIds: erased.mailIds };
        }
        if (signup[0].undeliverable_at !== null) return { kind: 'already-undeliverable' };
        if (kind === 'permanent') {
          await markUndeliverable(tx, key, provider, kind, detail, at);
          return { kind: 'undeliverable' };
        }
        await tx.query(
          `INSERT INTO transient_bounces (email_key, received_at)
           VALUES ($1, $2)`,
          [key, time],
        );
        const { rows } = await tx.query<{ n: number }>(
          `SELECT COUNT(*) AS n
           FROM transient_bounces
           WHERE email_key = $1 AND received_at > $2`,
          [key, new Date(at - TRANSIENT_DAYS * DAY_MS).toISOString()],
        );
        if (Number(rows[0].n) < TRANSIENTS_UNDELIVERABLE) return { kind: 'counted' };
        const words = `${TRANSIENTS_UNDELIVERABLE} transient bounces in ${TRANSIENT_DAYS} days, the last ${detail}`;
        await markUndeliverable(tx, key, provider, kind, words, at);
        return { kind: 'undeliverable' };
      });
    },

    async claimToken(provider, token, noticeId) {
      await sql.query(
        `INSERT INTO bounce_tokens (provider, token, notice_id, received_at)
         VALUES ($1, $2, $3, $4)
         ON CONFLICT (provider, token) DO NOTHING`,
        [provider, token, noticeId, new Date(now()).toISOString()],
      );
      const { rows } = await sql.query<{ notice_id: string }>(
        `SELECT notice_id
         FROM bounce_tokens
         WHERE provider = $1 AND token = $2`,
        [provider, token],
      );
      return rows[0]?.notice_id === noticeId;
    },

    async counts(since) {
      const { rows } = await sql.query<Record<keyof BounceCounts, number>>(
        `SELECT
           (SELECT COUNT(*) FROM mail WHERE state = 'sent' AND done_at >= $1) AS sent,
           COUNT(*) FILTER (WHERE kind = 'permanent') AS permanent,
           COUNT(*) FILTER (WHERE kind = 'transient') AS transient,
           COUNT(*) FILTER (WHERE kind = 'complaint') AS complaint
         FROM bounce_notices
         WHERE received_at >= $1`,
        [since],
      );
      const row = rows[0];
      return {
        sent: Number(row.sent),
        permanent: Number(row.permanent),
        transient: Number(row.transient),
        complaint: Number(row.complaint),
      };
    },

    async sweep() {
      const at = now();
      const noticesBefore = new Date(at - NOTICE_DAYS * DAY_MS).toISOString();
      const transientBefore = new Date(at - TRANSIENT_DAYS * DAY_MS).toISOString();
      let swept = 0;
      for (const [table, before] of [
        ['bounce_notices', noticesBefore],
        ['bounce_tokens', noticesBefore],
        ['transient_bounces', transientBefore],
      ] as const) {
        const { rowCount } = await sql.query(
          `DELETE FROM ${table}
           WHERE received_at < $1`,
          [before],
        );
        swept += rowCount;
      }
      return swept;
    },
  };
}
