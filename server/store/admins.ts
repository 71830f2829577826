// The console's accounts, for both engines: keyed by the normalised address like signups, each
// with its password hash and, once enrolled, its second factor. A new password or second factor
// ends every session of the account (admin-sessions.ts) and changes its device generation, which
// every device cookie of the account signs.
import { emailKey } from '../../shared/form-checks';
import { newKey } from './secrets';
import type { Queryable, Sql } from './sql';

/** An operator's account of the console, as `waitlist admin list` shows it. */
export interface AdminAccount {
  email: string;
  createdAt: string;
  /** Two-factor authentication enrolled: a login needs the code. */
  totp: boolean;
}

/** What a login checks against. */
export interface AdminCredentials {
  email: string;
  passwordHash: string;
  totpSecret: string | null;
  /**
   * What every device cookie of the account signs; a new password or second factor changes it
   * ('' for an account from before device cookies, until then).
   */
  deviceGeneration: string;
}

export interface Admins {
  /** False when the account exists already (any case or spacing). */
  add(email: string, passwordHash: string): Promise<boolean>;
  list(): Promise<AdminAccount[]>;
  count(): Promise<number>;
  /** Its sessions and device cookies go with it. False when there is no such account. */
  remove(email: string): Promise<boolean>;
  /**
   * A new password hash; every session and device cookie of the account ends. False when there is
   * no such account.
   */
  setPassword(email: string, passwordHash: string): Promise<boolean>;
  /**
   * Enrols (or with null, drops) two-factor authentication; every session and device cookie of the
   * account ends, and the new secret starts with no step accepted. False when there is no such
   * account.
   */
  setTotp(email: string, secret: string | null): Promise<boolean>;
  /**
   * Claims a TOTP time step for a login: true only when it is later than every step the account
   * accepted before (RFC 6238 §5.2: a code works once). Of two concurrent claims of one step,
   * whichever replica makes them, one is true.
   */
  acceptTotpStep(email: string, step: number): Promise<boolean>;
  credentials(email: string): Promise<AdminCredentials | undefined>;
}

/** Ends every session of the account (admin-sessions.ts), in the transaction that changes it. */
async function endSessions(tx: Queryable, email: string) {
  await tx.query(
    `DELETE FROM admin_sessions
     WHERE admin_key = $1`,
    [emailKey(email)],
  );
}

export function createAdmins(sql: Sql, now: () => number): Admins {
  const iso = () => new Date(now()).toISOString();
  return {
    async add(email, passwordHash) {
      const time = iso();
      const { rowCount } = await sql.query(
        `INSERT INTO admins
           (email_key, email, password_hash, created_at, password_changed_at, device_generation)
         VALUES ($1, $2, $3, $4, $4, $5)
         ON CONFLICT (email_key) DO NOTHING`,
        [emailKey(email), email.trim(), passwordHash, time, newKey()],
      );
      return rowCount === 1;
    },

    async list() {
      const { rows } = await sql.query<{
        email: string;
        created_at: string;
        totp: number | boolean;
      }>(
        `SELECT email, created_at, totp_secret IS NOT NULL AS totp
         FROM admins
         ORDER BY created_at, email_key`,
      );
      return rows.map((row): AdminAccount => ({
        email: row.email,
        createdAt: row.created_at,
        totp: Boolean(row.totp),
      }));
    },

    async count() {
      const { rows } = await sql.query<{ n: number }>(
        `SELECT COUNT(*) AS n
         FROM admins`,
      );
      return Number(rows[0].n);
    },

    async remove(email) {
      return sql.transaction(async (tx) => {
        await endSessions(tx, email);
        const { rowCount } = await tx.query(
          `DELETE FROM admins
           WHERE email_key = $1`,
          [emailKey(email)],
        );
        return rowCount === 1;
      });
    },

    async setPassword(email, passwordHash) {
      return sql.transaction(async (tx) => {
        const changed = await tx.query(
          `UPDATE admins
           SET password_hash = $1, password_changed_at = $2, device_generation = $3
           WHERE email_key = $4`,
          [passwordHash, iso(), newKey(), emailKey(email)],
        );
        // Whoever held a session with the old password holds nothing now.
        await endSessions(tx, email);
        return changed.rowCount === 1;
      });
    },

    async setTotp(email, secret) {
      return sql.transaction(async (tx) => {
        const changed = await tx.query(
          `UPDATE admins
           SET totp_secret = $1, totp_step = NULL, device_generation = $2
           WHERE email_key = $3`,
          [secret, newKey(), emailKey(email)],
        );
        // A session opened under the old second factor (or none) must log in again under the new.
        await endSessions(tx, email);
        return changed.rowCount === 1;
      });
    },

    async acceptTotpStep(email, step) {
      // One conditional statement: PostgreSQL checks the condition again on the row a concurrent
      // claim just updated, and SQLite runs one writer at a time, so a step is claimed once.
      const { rowCount } = await sql.query(
        `UPDATE admins
         SET totp_step = $1
         WHERE email_key = $2 AND totp_secret IS NOT NULL
           AND (totp_step IS NULL OR totp_step < $1)`,
        [step, emailKey(email)],
      );
      return rowCount === 1;
    },

    async credentials(email) {
      const { rows } = await sql.query<{
        email: string;
        password_hash: string;
        totp_secret: string | null;
        device_generation: string | null;
      }>(
        `SELECT email, password_hash, totp_secret, device_generation
         FROM admins
         WHERE email_key = $1`,
        [emailKey(email)],
      );
      const row = rows[0];
      return (
        row &&
        ({
          email: row.email,
          passwordHash: row.password_hash,
          totpSecret: row.totp_secret,
          deviceGeneration: row.device_generation ?? '',
        } satisfies AdminCredentials)
      );
    },
  };
}
