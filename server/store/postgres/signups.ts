// The waitlist in PostgreSQL: the same rows and answers as the SQLite store (server/store/signups.ts).
// A repeat signup is one statement that inserts nothing (ON CONFLICT on the normalised address),
// so two replicas taking the same address at once still keep one row.
import Cursor from 'pg-cursor';
import { emailKey, type Signup } from '../../../shared/signup';
import { sinceInstant } from '../since';
import type { SignupRow, Signups, WaitlistStats } from '../types';
import { asStoreError, types, type Connection } from './connection';

/** Rows an export holds at a time. */
const STREAM_BATCH = 1_000;

const LIST = `SELECT email, description, created_at, invited_at, activated_at FROM signups
  WHERE created_at >= $1 ORDER BY created_at DESC, id DESC`;

export function createSignups(db: Connection, now: () => Date): Signups {
  /** Each step of the cursor within the store's timeout, like any other call. */
  function inTime<T>(step: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`store deadline of ${db.timeoutMs} ms passed`)), db.timeoutMs);
    });
    return Promise.race([step, timeout]).finally(() => clearTimeout(timer));
  }

  return {
    async add(signup: Signup) {
      const result = await db.query(
        `INSERT INTO signups (email, email_key, description, created_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (email_key) DO NOTHING`,
        [signup.email.trim(), emailKey(signup.email), signup.description, now().toISOString()],
      );
      return result.rowCount === 1;
    },

    async count() {
      return (await db.query<{ n: number }>('SELECT COUNT(*) AS n FROM signups')).rows[0].n;
    },

    async list(since = '') {
      return (await db.query<SignupRow>(LIST, [sinceInstant(since)])).rows;
    },

    // A cursor on a connection of its own, read a batch at a time as the consumer asks for rows
    // (an export of a million signups holds one batch). The finally block runs when the consumer
    // stops early too (break, or an error in a pipeline), so the connection always goes back.
    // The server's statement_timeout would count from the first batch to the last and cancel a
    // long export (a slow pipe, millions of rows): it is lifted on this connection for the
    // cursor, while each batch still has to arrive within the timeout (inTime).
    async *stream(since = '') {
      const client = await db.connect();
      await inTime(client.query('SET statement_timeout = 0'));
      const cursor = client.query(new Cursor<SignupRow>(LIST, [sinceInstant(since)], { types }));
      let broken = false;
      try {
        for (;;) {
          let rows: SignupRow[];
          try {
            rows = await inTime(cursor.read(STREAM_BATCH));
          } catch (err) {
            broken = true;
            throw asStoreError(err);
          }
          if (rows.length === 0) return;
          yield* rows;
        }
      } finally {
        if (!broken) await inTime(cursor.close()).catch(() => (broken = true));
        if (!broken) await inTime(client.query('RESET statement_timeout')).catch(() => (broken = true));
        client.release(broken);
      }
    },

    async oldestWaiting(limit: number) {
      const { rows } = await db.query<{ email: string }>(
        'SELECT email FROM signups WHERE invited_at IS NULL AND activated_at IS NULL ORDER BY created_at, id LIMIT $1',
        [limit],
      );
      return rows.map((row) => row.email);
    },

    async stats() {
      const { rows } = await db.query<WaitlistStats & Record<string, number>>(
        `SELECT COUNT(*) AS total,
                COUNT(*) FILTER (WHERE invited_at IS NULL AND activated_at IS NULL) AS waitlisted,
                COUNT(*) FILTER (WHERE invited_at IS NOT NULL AND activated_at IS NULL) AS invited,
                COUNT(activated_at) AS activated
         FROM signups`,
      );
      return rows[0];
    },
  };
}
