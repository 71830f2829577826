// Who signed up, and where each address stands (waitlisted → invited → activated), for both
// engines. A repeat signup is one statement that inserts nothing (ON CONFLICT on the normalised
// address), so two replicas taking the same address at once still keep one row.
import { emailKey, type Signup } from '../../shared/signup';
import { sinceInstant } from './since';
import type { Sql } from './sql';
import type { SignupRow, Signups, WaitlistStats } from './types';

/** Rows an export reads at a time: a million signups are never all held. */
const STREAM_BATCH = 1_000;

const COLUMNS = 'email, description, created_at, invited_at, activated_at';

/** Newest first, in the order of the index both engines keep, (created_at, id). */
const LIST = `SELECT ${COLUMNS} FROM signups WHERE created_at >= $1 ORDER BY created_at DESC, id DESC`;

/** Neither invited nor activated: the one definition of "waiting" (invite --next, stats). */
export const WAITING = 'invited_at IS NULL AND activated_at IS NULL';

export function createSignups(sql: Sql, now: () => Date): Signups {
  return {
    async add(signup: Signup) {
      const result = await sql.query(
        `INSERT INTO signups (email, email_key, description, created_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (email_key) DO NOTHING`,
        [signup.email.trim(), emailKey(signup.email), signup.description, now().toISOString()],
      );
      return result.rowCount === 1;
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
      const { rows } = await sql.query<Record<keyof WaitlistStats, number>>(
        `SELECT COUNT(*) AS total,
                COUNT(*) FILTER (WHERE ${WAITING}) AS waitlisted,
                COUNT(*) FILTER (WHERE invited_at IS NOT NULL AND activated_at IS NULL) AS invited,
                COUNT(activated_at) AS activated
         FROM signups`,
      );
      const [counts] = rows;
      return { total: Number(counts.total), waitlisted: Number(counts.waitlisted), invited: Number(counts.invited), activated: Number(counts.activated) };
    },
  };
}
