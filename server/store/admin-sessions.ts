// The console's sessions, for both engines. A session is stored only as the SHA-256 of its id and
// ends when idle too long, when too old, at logout, or when the account's password or second
// factor changes (admins.ts deletes them then).
import { emailKey } from '../../shared/form-checks';
import type { Sql } from './sql';

/** Console sessions, kept only as the SHA-256 of their id. */
export interface AdminSessions {
  start(email: string, idHash: string): Promise<void>;
  /**
   * The account of a live session, seen now: undefined when the session is unknown, has been idle
   * longer than `idleMs` or is older than `maxMs` (then it is deleted).
   */
  touch(
    idHash: string,
    limits: { idleMs: number; maxMs: number },
  ): Promise<{ email: string } | undefined>;
  end(idHash: string): Promise<void>;
}

export function createAdminSessions(sql: Sql, now: () => number): AdminSessions {
  const end = async (idHash: string) => {
    await sql.query(
      `DELETE FROM admin_sessions
       WHERE id_hash = $1`,
      [idHash],
    );
  };

  return {
    async start(email, idHash) {
      const time = new Date(now()).toISOString();
      await sql.query(
        `INSERT INTO admin_sessions (id_hash, admin_key, created_at, last_seen_at)
         VALUES ($1, $2, $3, $3)`,
        [idHash, emailKey(email), time],
      );
    },

    async touch(idHash, { idleMs, maxMs }) {
      const at = now();
      const time = new Date(at).toISOString();
      // One statement: a live session is seen now; an expired one is not (and is deleted below).
      const { rows } = await sql.query<{ email: string }>(
        `UPDATE admin_sessions
         SET last_seen_at = $1
         WHERE id_hash = $2 AND last_seen_at > $3 AND created_at > $4
         RETURNING (
           SELECT email
           FROM admins
           WHERE admins.email_key = admin_sessions.admin_key
         ) AS email`,
        [time, idHash, new Date(at - idleMs).toISOString(), new Date(at - maxMs).toISOString()],
      );
      if (rows[0]) return { email: rows[0].email };
      await end(idHash);
      return undefined;
    },

    end,
  };
}
