// Who signed up, and where each address stands (unconfirmed → waitlisted → invited → activated, or
// undeliverable), for both engines. A signup is one statement that writes one row, new or a repeat
// (ON CONFLICT on the normalised address), so two replicas taking the same address at once still
// keep one row. With confirmation on, the same statement records the confirmation mail it is due
// (with it off, the welcome mail a new address is due); the mail worker writes it (address-links/,
// mailConfirmations, mailWelcomes), so a signup costs what it cost without mail (decision 0015).
import { emailKey, type Signup } from '../../shared/form-checks';
import { DEFAULT_LANGUAGE, LANGUAGES, type Language } from '../../shared/i18n/languages';
import { SOURCE_FIELDS, type SourceField } from '../../shared/sources';
import { sinceInstant } from './since';
import type { AddressHash } from './suppressions';
import type { Sql } from './sql';

/** Where a signup came from (shared/sources.ts), as stored: null where not known. */
export type SourceColumns = Record<SourceField, string | null>;

export interface SignupRow extends SourceColumns {
  email: string;
  description: string;
  created_at: string;
  invited_at: string | null;
  activated_at: string | null;
  /** Null while the address has not followed its confirmation link (CONFIRM_SIGNUPS=on). */
  confirmed_at: string | null;
  state: SignupState;
  /** The language of the page it came from, the last time it came: its mail is written in it. */
  language: Language;
}

/** A row of the console's table: the signup, and who found it undeliverable and their words. */
export interface SignupPageRow extends SignupRow {
  id: number;
  /**
   * `smtp` (our mail server refused it), a bounce provider, or null (not undeliverable, or marked
   * before the store recorded who did).
   */
  undeliverable_by: string | null;
  undeliverable_detail: string | null;
}

/**
 * Where a signup stands; each is in exactly one (STATE, below):
 * unconfirmed → waitlisted (confirmed, waiting) → invited → activated, and undeliverable when the
 * mail server refused the address for good before it activated.
 */
export type SignupState = 'unconfirmed' | 'waitlisted' | 'invited' | 'activated' | 'undeliverable';

export const SIGNUP_STATES: readonly SignupState[] = [
  'unconfirmed',
  'waitlisted',
  'invited',
  'activated',
  'undeliverable',
];

export type WaitlistStats = Record<SignupState | 'total', number>;

/** Signups by the language of the page they came from; every language of the site, 0 or more. */
export type LanguageCounts = Record<Language, number>;

/**
 * Signups of a period by where they came from: the link's utm_source, else the referring site's
 * host, else neither ('direct': typed, bookmarked, a mail app, a referrer withheld, or not known).
 */
export interface SourceCount {
  kind: 'campaign' | 'site' | 'direct';
  /** The utm_source or the host; '' for 'direct'. */
  name: string;
  signups: number;
}

export interface SourceCounts {
  /** The most frequent, most first (ties by name), at most the limit asked for. */
  top: SourceCount[];
  /** Every signup of the period, those beyond the top included. */
  total: number;
}

export interface Signups {
  /**
   * Adds a signup in one statement that writes one row, new or not, so both cost the same; true if
   * new. A repeat (same address, any case or spacing) keeps the row and clears an undeliverable
   * mark. With `confirm`, a new signup is unconfirmed and due a confirmation mail, recorded in
   * that same statement (addressLinks.mailConfirmations writes it); a repeat of an address still
   * unconfirmed is due a new one at most once an hour; a confirmed one is due nothing. With
   * `welcome` and without `confirm`, a new signup is due a welcome mail, recorded the same way
   * (addressLinks.mailWelcomes writes it); a repeat is due none. The signup's language (English
   * when not given) is recorded, a repeat's included: the person's mail follows the page they
   * used last. Where it came from is the first signup's: a repeat changes none of it (first
   * touch, decision 0035). A person signing up again themselves lifts their suppression
   * (suppressions.ts), so an import may bring them in again.
   */
  add(signup: Signup, options?: { confirm?: boolean; welcome?: boolean }): Promise<boolean>;
  count(): Promise<number>;
  /** Newest first; `since` is an ISO date or timestamp. */
  list(since?: string): Promise<SignupRow[]>;
  /** The same rows as they are read, never all held at once (export of millions of rows). */
  stream(since?: string): AsyncIterable<SignupRow>;
  /**
   * The `limit` oldest waitlisted addresses: confirmed, neither invited nor activated, not
   * undeliverable (invite --next).
   */
  oldestWaiting(limit: number): Promise<string[]>;
  /** Totals by state; each signup counts in exactly one. */
  stats(): Promise<WaitlistStats>;
  /** Totals by language; each signup counts in exactly one. */
  languages(): Promise<LanguageCounts>;
  /**
   * Signups created at or after `since` (ISO) by source, each in exactly one; the `limit` largest
   * sources listed.
   */
  sources(since: string, limit: number): Promise<SourceCounts>;
  /**
   * Up to `limit` addresses still unconfirmed whose every confirmation link has expired, oldest
   * first; only signups created at or before `createdBefore` (ISO) are looked at (the expiry
   * sweep).
   */
  expiredUnconfirmed(createdBefore: string, limit: number): Promise<string[]>;
  /**
   * One page of the console's table: addresses containing `q` (any case), in `state` and of
   * `language` if given, newest or oldest first, `limit` rows after the keyset `after` (the last
   * row of the page before).
   */
  page(options: SignupPageQuery): Promise<SignupPageRow[]>;
  /**
   * Per UTC day from `sinceDay` (YYYY-MM-DD) on: signups, invitations and activations that day;
   * days without any are left out.
   */
  daily(sinceDay: string): Promise<DailyCounts[]>;
  /**
   * Confirmation mails due and not written yet: a few while the worker keeps up, growing when it
   * does not.
   */
  confirmationsDue(): Promise<number>;
  /** Welcome mails due and not written yet (WELCOME_MAIL=on). */
  welcomesDue(): Promise<number>;
}

export interface SignupPageQuery {
  q?: string;
  state?: SignupState;
  language?: Language;
  order: 'newest' | 'oldest';
  limit: number;
  after?: { createdAt: string; id: number };
}

export interface DailyCounts {
  day: string;
  signups: number;
  invited: number;
  activated: number;
}

/**
 * The window of the per-address mail limits: a repeat's new confirmation mail here, leave links in
 * address-links/mail.ts.
 */
export const MAIL_AGAIN_AFTER_MS = 60 * 60_000;

/** Rows an export reads at a time: a million signups are never all held. */
const STREAM_BATCH = 1_000;

/**
 * The one definition of a signup's state, in SQL so every reader (stats, list, export, invite)
 * takes it from the row as stored. Activation wins over everything; a refusal for good counts
 * until then; an unconfirmed address was never invited.
 */
export const STATE = `CASE
  WHEN activated_at IS NOT NULL THEN 'activated'
  WHEN undeliverable_at IS NOT NULL THEN 'undeliverable'
  WHEN invited_at IS NOT NULL THEN 'invited'
  WHEN confirmed_at IS NULL THEN 'unconfirmed'
  ELSE 'waitlisted'
END`;

const COLUMNS = `email, description, created_at, invited_at, activated_at, confirmed_at,
  ${STATE} AS state, language, ${SOURCE_FIELDS.join(', ')}`;

/** A signup's source as counted: its utm_source, else its referrer, else none (SourceCount). */
const SOURCE_KIND = `CASE
  WHEN utm_source IS NOT NULL THEN 'campaign'
  WHEN referrer IS NOT NULL THEN 'site'
  ELSE 'direct'
END`;

/** Newest first, in the order of the index both engines keep, (created_at, id). */
const LIST = `SELECT ${COLUMNS}
  FROM signups
  WHERE created_at >= $1
  ORDER BY created_at DESC, id DESC`;

/**
 * STATE = 'waitlisted' written on the columns, as the partial index signups_waiting is (invite
 * --next reads it); test/server/store/contract.test.ts holds the two to the same rows.
 */
export const WAITING = `invited_at IS NULL AND activated_at IS NULL AND confirmed_at IS NOT NULL
  AND undeliverable_at IS NULL`;

/**
 * An unconfirmed signup due no mail, none of whose confirmation links still works ($1: now, ISO).
 * An imported one that no confirmation mail was due yet is not expired (imports.ts).
 */
export const EXPIRED_UNCONFIRMED = `confirmed_at IS NULL AND imported_unconfirmed_at IS NULL
  AND confirmation_due_at IS NULL
  AND NOT EXISTS (
    SELECT 1
    FROM address_tokens
    WHERE address_tokens.email_key = signups.email_key AND purpose = 'confirm'
      AND (expires_at IS NULL OR expires_at > $1)
  )`;

/**
 * A signup, new or a repeat, as one statement that writes one row either way, so the answer costs
 * the same and tells nobody whether the address was stored already (decision 0021).
 * New: confirmed from the start ($5 = $4) when confirmation is off, and then due a welcome mail
 * ($8 = $4) with WELCOME_MAIL on; unconfirmed and due a confirmation mail ($6 = $4) when on. A new
 * signup is always due its `signup.created` webhook event (webhooks/signup-events.ts).
 * A repeat is never due a welcome: the address had its own when it joined.
 * A repeat keeps the row and records when it came ($4) and from which language's page ($9): its
 * row is written too, since SQLite writes (and syncs) nothing for an update that changes no byte.
 * Where it came from ($10–$13) is the first signup's: the repeat leaves it (decision 0035).
 * The person typed the address again, so a refusal for good is worth another try; with
 * confirmation on ($6 set), an address still unconfirmed is due a new mail (the first may be lost
 * or in spam), unless one is due already or went out within MAIL_AGAIN_AFTER_MS ($7: that
 * window's start): never a flood. An imported row waiting for its first confirmation mail is due
 * one then, so it expires from that mail as any signup does.
 */
const ADD = `INSERT INTO signups (email, email_key, description, created_at, confirmed_at,
    confirmation_due_at, welcome_due_at, created_event_due_at, language,
    ${SOURCE_FIELDS.join(', ')})
  VALUES ($1, $2, $3, $4, $5, $6, $8, $4, $9, $10, $11, $12, $13)
  ON CONFLICT (email_key) DO UPDATE
  SET repeated_at = $4, undeliverable_at = NULL, language = $9,
    confirmation_due_at = CASE
      WHEN $6 IS NOT NULL AND signups.confirmed_at IS NULL AND signups.confirmation_due_at IS NULL
        AND NOT EXISTS (
          SELECT 1
          FROM address_tokens
          WHERE address_tokens.email_key = signups.email_key AND purpose = 'confirm'
            AND address_tokens.created_at > $7
        )
      THEN $4
      ELSE signups.confirmation_due_at
    END,
    imported_unconfirmed_at = CASE
      WHEN $6 IS NOT NULL THEN NULL
      ELSE signups.imported_unconfirmed_at
    END`;

export function createSignups(sql: Sql, hashAddress: AddressHash, now: () => number): Signups {
  /** The signups `where` matches, or all of them. */
  const count = async (where?: string) => {
    const { rows } = await sql.query<{ n: number }>(
      where === undefined
        ? `SELECT COUNT(*) AS n
           FROM signups`
        : `SELECT COUNT(*) AS n
           FROM signups
           WHERE ${where}`,
    );
    return Number(rows[0].n);
  };

  return {
    async add(signup: Signup, { confirm = false, welcome = false } = {}) {
      const at = now();
      const time = new Date(at).toISOString();
      const key = emailKey(signup.email);
      // Neither engine's upsert says which way it went: a read before it tells the log and the
      // metrics (a repeat racing the first signup from another replica may count as new).
      const { rows } = await sql.query(
        `SELECT 1 AS one
         FROM signups
         WHERE email_key = $1`,
        [key],
      );
      await sql.query(ADD, [
        signup.email.trim(),
        key,
        signup.description,
        time,
        confirm ? null : time,
        confirm ? time : null,
        new Date(at - MAIL_AGAIN_AFTER_MS).toISOString(),
        welcome && !confirm ? time : null,
        signup.language ?? DEFAULT_LANGUAGE,
        ...SOURCE_FIELDS.map((field) => signup.source?.[field] ?? null),
      ]);
      // The person came back themselves: an import may bring them in again. Every signup runs
      // it, so it costs the same whether the address was suppressed or not.
      await sql.query(
        `DELETE FROM suppressions
         WHERE address_hash = $1`,
        [await hashAddress(key)],
      );
      return rows.length === 0;
    },

    count: () => count(),

    async list(since = '') {
      return (await sql.query<SignupRow>(LIST, [sinceInstant(since)])).rows;
    },

    async *stream(since = '') {
      yield* sql.stream<SignupRow>(LIST, [sinceInstant(since)], STREAM_BATCH);
    },

    async oldestWaiting(limit: number) {
      const { rows } = await sql.query<{ email: string }>(
        `SELECT email
         FROM signups
         WHERE ${WAITING}
         ORDER BY created_at, id
         LIMIT $1`,
        [limit],
      );
      return rows.map((row) => row.email);
    },

    async stats() {
      const { rows } = await sql.query<{ state: SignupState; n: number }>(
        `SELECT ${STATE} AS state, COUNT(*) AS n
         FROM signups
         GROUP BY 1`,
      );
      const stats = Object.fromEntries(
        [...SIGNUP_STATES, 'total'].map((state) => [state, 0]),
      ) as WaitlistStats;
      for (const { state, n } of rows) {
        stats[state] = Number(n);
        stats.total += Number(n);
      }
      return stats;
    },

    async languages() {
      const { rows } = await sql.query<{ language: Language; n: number }>(
        `SELECT language, COUNT(*) AS n
         FROM signups
         GROUP BY language`,
      );
      const counts = Object.fromEntries(
        LANGUAGES.map((language) => [language, 0]),
      ) as LanguageCounts;
      for (const { language, n } of rows) counts[language] = Number(n);
      return counts;
    },

    async sources(since: string, limit: number) {
      // One range of signups_created_at; the groups are as many as the period's distinct sources.
      const [top, total] = await Promise.all([
        sql.query<SourceCount>(
          `SELECT ${SOURCE_KIND} AS kind, COALESCE(utm_source, referrer, '') AS name,
             COUNT(*) AS signups
           FROM signups
           WHERE created_at >= $1
           GROUP BY 1, 2
           ORDER BY 3 DESC, 2, 1
           LIMIT $2`,
          [since, limit],
        ),
        sql.query<{ n: number }>(
          `SELECT COUNT(*) AS n
           FROM signups
           WHERE created_at >= $1`,
          [since],
        ),
      ]);
      return {
        top: top.rows.map((row) => ({ ...row, signups: Number(row.signups) })),
        total: Number(total.rows[0].n),
      };
    },

    async page({ q, state, language, order, limit, after }) {
      const where: string[] = [];
      const values: unknown[] = [];
      const param = (value: unknown) => `$${values.push(value)}`;
      // email_key is the address in lower case: a substring of it in any case, with LIKE's own
      // wildcards in the search taken literally.
      if (q) {
        const literal = emailKey(q).replace(/[\\%_]/g, (c) => `\\${c}`);
        where.push(`email_key LIKE ${param(`%${literal}%`)} ESCAPE '\\'`);
      }
      if (state) where.push(`${STATE} = ${param(state)}`);
      if (language) where.push(`language = ${param(language)}`);
      const newest = order === 'newest';
      if (after)
        where.push(
          `(created_at, id) ${newest ? '<' : '>'} (${param(after.createdAt)}, ${param(after.id)})`,
        );
      const filter = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
      const direction = newest ? 'DESC' : 'ASC';
      const { rows } = await sql.query<SignupPageRow>(
        `SELECT id, ${COLUMNS}, undeliverable_by, undeliverable_detail
         FROM signups
         ${filter}
         ORDER BY created_at ${direction}, id ${direction}
         LIMIT ${param(limit)}`,
        values,
      );
      return rows.map((row) => ({ ...row, id: Number(row.id) }));
    },

    async daily(sinceDay: string) {
      const days = new Map<string, DailyCounts>();
      // One range of an index per column (created_at, invited_at, activated_at), grouped by the
      // date part of the ISO time: the same in both engines. The three run at once (PostgreSQL
      // takes them on three connections).
      const columns = {
        created_at: 'signups',
        invited_at: 'invited',
        activated_at: 'activated',
      } as const;
      const counted = await Promise.all(
        Object.entries(columns).map(async ([column, name]) => {
          const { rows } = await sql.query<{ day: string; n: number }>(
            `SELECT substr(${column}, 1, 10) AS day, COUNT(*) AS n
             FROM signups
             WHERE ${column} >= $1
             GROUP BY substr(${column}, 1, 10)`,
            [sinceDay],
          );
          return { name, rows };
        }),
      );
      for (const { name, rows } of counted) {
        for (const { day, n } of rows) {
          const counts = days.get(day) ?? { day, signups: 0, invited: 0, activated: 0 };
          counts[name] = Number(n);
          days.set(day, counts);
        }
      }
      return [...days.values()].sort((a, b) => a.day.localeCompare(b.day));
    },

    confirmationsDue: () => count('confirmation_due_at IS NOT NULL'),

    welcomesDue: () => count('welcome_due_at IS NOT NULL'),

    async expiredUnconfirmed(createdBefore: string, limit: number) {
      const { rows } = await sql.query<{ email: string }>(
        `SELECT email
         FROM signups
         WHERE ${EXPIRED_UNCONFIRMED} AND created_at <= $2
         ORDER BY created_at
         LIMIT $3`,
        [new Date(now()).toISOString(), createdBefore, limit],
      );
      return rows.map((row) => row.email);
    },
  };
}
