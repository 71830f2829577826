// Who signed up, and where each address stands (unconfirmed → waitlisted → invited → activated, or
// undeliverable), for both engines. A signup is one statement that inserts nothing for a repeat
// (ON CONFLICT on the normalised address), so two replicas taking the same address at once still
// keep one row. With confirmation on, the confirmation mail joins that insert in one transaction.
import { emailKey, type Signup } from '../../shared/signup';
import { issueToken, linksMailedRecently } from './address-tokens';
import type { MailQueueWriter } from './mail-queue';
import { sinceInstant } from './since';
import type { Queryable, Sql } from './sql';
import { SIGNUP_STATES, type ConfirmationMail, type SignupRow, type Signups, type SignupState, type WaitlistStats } from './types';

/** Rows an export reads at a time: a million signups are never all held. */
const STREAM_BATCH = 1_000;

/**
 * The one definition of a signup's state, in SQL so every reader (stats, list, export, invite)
 * takes it from the row as stored. Activation wins over everything; a refusal for good counts
 * until then; an unconfirmed address was never invited.
 */
export const STATE = `CASE WHEN activated_at IS NOT NULL THEN 'activated' WHEN undeliverable_at IS NOT NULL THEN 'undeliverable'
  WHEN invited_at IS NOT NULL THEN 'invited' WHEN confirmed_at IS NULL THEN 'unconfirmed' ELSE 'waitlisted' END`;

const COLUMNS = `email, description, created_at, invited_at, activated_at, confirmed_at, ${STATE} AS state`;

/** Newest first, in the order of the index both engines keep, (created_at, id). */
const LIST = `SELECT ${COLUMNS} FROM signups WHERE created_at >= $1 ORDER BY created_at DESC, id DESC`;

/**
 * STATE = 'waitlisted' written on the columns, as the partial index signups_waiting is (invite
 * --next reads it); test/server/store/contract.test.ts holds the two to the same rows.
 */
export const WAITING = 'invited_at IS NULL AND activated_at IS NULL AND confirmed_at IS NOT NULL AND undeliverable_at IS NULL';

/** An unconfirmed signup none of whose confirmation links still works ($1: now, ISO). */
export const EXPIRED_UNCONFIRMED = `confirmed_at IS NULL AND NOT EXISTS (
  SELECT 1 FROM address_tokens WHERE address_tokens.email_key = signups.email_key AND purpose = 'confirm' AND (expires_at IS NULL OR expires_at > $1))`;

const INSERT = `INSERT INTO signups (email, email_key, description, created_at, confirmed_at) VALUES ($1, $2, $3, $4, $5)
  ON CONFLICT (email_key) DO NOTHING`;

/** A repeat signup: the person typed the address again, so a refusal for good is worth another try. */
const CLEAR_UNDELIVERABLE = 'UPDATE signups SET undeliverable_at = NULL WHERE email_key = $1 AND undeliverable_at IS NOT NULL';

export function createSignups(sql: Sql, mail: MailQueueWriter, now: () => number): Signups {
  /** Queues a confirmation mail with fresh links for a signup that is unconfirmed. */
  async function mailConfirmation(tx: Queryable, email: string, key: string, at: number, confirmation: ConfirmationMail): Promise<void> {
    const confirm = await issueToken(tx, key, 'confirm', at, confirmation.validMs);
    const leave = await issueToken(tx, key, 'leave', at);
    await mail.enqueue(tx, key, confirmation.compose(email, { confirm, leave }), { claimed: false });
  }

  return {
    async add(signup: Signup, confirmation?: ConfirmationMail) {
      const at = now();
      const email = signup.email.trim();
      const key = emailKey(signup.email);
      const values = [email, key, signup.description, new Date(at).toISOString()];
      if (!confirmation) {
        // Confirmed from the start: confirmation is off.
        const added = (await sql.query(INSERT, [...values, values[3]])).rowCount === 1;
        if (!added) await sql.query(CLEAR_UNDELIVERABLE, [key]);
        return added;
      }
      return sql.transaction(async (tx) => {
        if ((await tx.query(INSERT, [...values, null])).rowCount === 1) {
          await mailConfirmation(tx, email, key, at, confirmation);
          return true;
        }
        await tx.query(CLEAR_UNDELIVERABLE, [key]);
        const stored = (
          await tx.query<{ email: string; confirmed_at: string | null }>(`SELECT email, confirmed_at FROM signups WHERE email_key = $1${sql.lockRows}`, [key])
        ).rows[0];
        // Unconfirmed still: the first mail may be lost or in spam, so another one, but never a flood.
        if (stored && stored.confirmed_at === null && (await linksMailedRecently(tx, key, 'confirm', at)) === 0) {
          await mailConfirmation(tx, stored.email, key, at, confirmation);
        }
        return false;
      });
    },

    async count() {
      return Number((await sql.query<{ n: number }>('SELECT COUNT(*) AS n FROM signups')).rows[0].n);
    },

    async list(since = '') {
      return (await sql.query<SignupRow>(LIST, [sinceInstant(since)])).rows;
    },

    async *stream(since = '') {
      yield* sql.stream<SignupRow>(LIST, [sinceInstant(since)], STREAM_BATCH);
    },

    async oldestWaiting(limit: number) {
      const { rows } = await sql.query<{ email: string }>(`SELECT email FROM signups WHERE ${WAITING} ORDER BY created_at, id LIMIT $1`, [limit]);
      return rows.map((row) => row.email);
    },

    async stats() {
      const { rows } = await sql.query<{ state: SignupState; n: number }>(`SELECT ${STATE} AS state, COUNT(*) AS n FROM signups GROUP BY 1`);
      const stats = Object.fromEntries([...SIGNUP_STATES, 'total'].map((state) => [state, 0])) as WaitlistStats;
      for (const { state, n } of rows) {
        stats[state] = Number(n);
        stats.total += Number(n);
      }
      return stats;
    },

    async expiredUnconfirmed(createdBefore: string, limit: number) {
      const { rows } = await sql.query<{ email: string }>(
        `SELECT email FROM signups WHERE ${EXPIRED_UNCONFIRMED} AND created_at <= $2 ORDER BY created_at LIMIT $3`,
        [new Date(now()).toISOString(), createdBefore, limit],
      );
      return rows.map((row) => row.email);
    },
  };
}
