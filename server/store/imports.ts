// Bringing a list in (`waitlist import`, the console's import), for both engines: signups written
// as another list kept them, a batch in one transaction, each address only if it is not on the
// list yet: an address already there is left exactly as it is. Nobody is mailed, and no webhook
// event is due: these people joined elsewhere, long ago. An unconfirmed row waits for a
// confirmation mail the operator asks for (`waitlist confirm --resend`): until one is due, the
// expiry sweep passes it over (migrations/017-imported-unconfirmed.ts).
import { emailKey } from '../../shared/form-checks';
import type { Language } from '../../shared/i18n/languages';
import type { SignupSource } from '../../shared/sources';
import { placeholders, type Sql } from './sql';

/** A signup as the imported file had it; times are ISO strings (toISOString()). */
export interface ImportedSignup {
  /** Trimmed, as written in the file. */
  email: string;
  description: string;
  language: Language;
  /** Where it came from, as the file's source columns say (bounded); none when they say nothing. */
  source?: SignupSource;
  createdAt: string;
  /** Null: it comes in unconfirmed, and waits for `confirm --resend`. */
  confirmedAt: string | null;
  invitedAt: string | null;
  activatedAt: string | null;
  /** The file says mail to it was refused for good: it stays so (since the import). */
  undeliverable: boolean;
}

/** What asking for one address's confirmation mail found. */
export type ResendOne = 'due' | 'confirmed' | 'undeliverable' | 'not-on-list';

export interface SignupImports {
  /** Of these addresses, the ones on the list (their emailKeys), in one query a few hundred. */
  present(emails: readonly string[]): Promise<Set<string>>;
  /**
   * Adds, in one transaction, each signup whose address is not on the list; one that is (a
   * signup made meanwhile, a repeat in the batch) is left as it is. Resolves with the emailKeys
   * added, once committed.
   */
  add(signups: readonly ImportedSignup[]): Promise<Set<string>>;
  /**
   * Makes a confirmation mail due to up to `limit` imported rows still waiting for their first
   * (oldest import first), as a signup's own statement does; the mail worker writes them. An
   * undeliverable row is never mailed. Resolves with how many.
   */
  resendConfirmations(limit: number): Promise<number>;
  /** The same for one unconfirmed address, imported or not. */
  resendConfirmation(email: string): Promise<ResendOne>;
  /** Imported rows waiting for their first confirmation mail that resendConfirmations mails. */
  awaitingConfirmation(): Promise<number>;
}

/** Rows a statement inserts or looks up at most: well within both engines' parameter limits. */
const CHUNK = 250;

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

const INSERT_COLUMNS = `email, email_key, description, language, created_at, confirmed_at,
  invited_at, activated_at, undeliverable_at, imported_unconfirmed_at, utm_source, utm_medium,
  utm_campaign, referrer`;
const COLUMN_COUNT = 14;

/** `($1, …, $10), ($11, …)`: the VALUES of `rows` rows. */
const valuesOf = (rows: number) =>
  Array.from({ length: rows }, (_, r) => {
    const from = r * COLUMN_COUNT + 1;
    return `(${placeholders(Array.from({ length: COLUMN_COUNT }), from)})`;
  }).join(', ');

/** Waiting for its first confirmation mail, and one may be sent to it. */
const AWAITING = `imported_unconfirmed_at IS NOT NULL AND confirmed_at IS NULL
  AND undeliverable_at IS NULL`;

export function createSignupImports(sql: Sql, now: () => number): SignupImports {
  return {
    async present(emails) {
      const found = new Set<string>();
      for (const keys of chunks(emails.map(emailKey))) {
        const { rows } = await sql.query<{ email_key: string }>(
          `SELECT email_key
           FROM signups
           WHERE email_key IN (${placeholders(keys)})`,
          keys,
        );
        for (const row of rows) found.add(row.email_key);
      }
      return found;
    },

    async add(signups) {
      const time = new Date(now()).toISOString();
      return sql.transaction(async (tx) => {
        const added = new Set<string>();
        for (const batch of chunks(signups)) {
          const values = batch.flatMap((s) => [
            s.email,
            emailKey(s.email),
            s.description,
            s.language,
            s.createdAt,
            s.confirmedAt,
            s.invitedAt,
            s.activatedAt,
            s.undeliverable ? time : null,
            s.confirmedAt === null ? time : null,
            s.source?.utm_source ?? null,
            s.source?.utm_medium ?? null,
            s.source?.utm_campaign ?? null,
            s.source?.referrer ?? null,
          ]);
          const { rows } = await tx.query<{ email_key: string }>(
            `INSERT INTO signups (${INSERT_COLUMNS})
             VALUES ${valuesOf(batch.length)}
             ON CONFLICT (email_key) DO NOTHING
             RETURNING email_key`,
            values,
          );
          for (const row of rows) added.add(row.email_key);
        }
        return added;
      });
    },

    async resendConfirmations(limit) {
      const { rowCount } = await sql.query(
        `UPDATE signups
         SET confirmation_due_at = $1, imported_unconfirmed_at = NULL
         WHERE email_key IN (
           SELECT email_key
           FROM signups
           WHERE ${AWAITING}
           ORDER BY imported_unconfirmed_at
           LIMIT $2
         )`,
        [new Date(now()).toISOString(), limit],
      );
      return rowCount;
    },

    async resendConfirmation(email) {
      const key = emailKey(email);
      return sql.transaction(async (tx): Promise<ResendOne> => {
        const { rows } = await tx.query<{ confirmed: number; undeliverable: number }>(
          `SELECT CASE WHEN confirmed_at IS NULL THEN 0 ELSE 1 END AS confirmed,
             CASE WHEN undeliverable_at IS NULL THEN 0 ELSE 1 END AS undeliverable
           FROM signups
           WHERE email_key = $1${sql.lockRows}`,
          [key],
        );
        const row = rows[0];
        if (!row) return 'not-on-list';
        if (Number(row.confirmed) === 1) return 'confirmed';
        if (Number(row.undeliverable) === 1) return 'undeliverable';
        await tx.query(
          `UPDATE signups
           SET confirmation_due_at = $1, imported_unconfirmed_at = NULL
           WHERE email_key = $2`,
          [new Date(now()).toISOString(), key],
        );
        return 'due';
      });
    },

    async awaitingConfirmation() {
      const { rows } = await sql.query<{ n: number }>(
        `SELECT COUNT(*) AS n
         FROM signups
         WHERE ${AWAITING}`,
      );
      return Number(rows[0].n);
    },
  };
}
