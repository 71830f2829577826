// The waitlist in SQLite (the embedded store, used when no BACKEND_URL is set): who signed up,
// and where each address stands (waitlisted → invited → activated). Every write is one statement,
// committed before the function returns.
import { emailKey, type Signup } from '../../shared/signup';
import type { Db } from './db';
import { sinceInstant } from './since';
import type { SignupRow, Signups, WaitlistStats } from './types';

export function createSignups(db: Db, now: () => Date = () => new Date()): Signups {
  const insertSignup = db.prepare(
    `INSERT INTO signups (email, email_key, description, created_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (email_key) DO NOTHING`,
  );
  const countSignups = db.prepare('SELECT COUNT(*) AS n FROM signups');
  const listSignups = db.prepare(
    `SELECT email, description, created_at, invited_at, activated_at FROM signups
     WHERE created_at >= ? ORDER BY created_at DESC, id DESC`,
  );
  const oldestWaiting = db.prepare(
    'SELECT email FROM signups WHERE invited_at IS NULL AND activated_at IS NULL ORDER BY created_at, id LIMIT ?',
  );
  const stats = db.prepare(
    `SELECT COUNT(*) AS total,
            COUNT(*) FILTER (WHERE invited_at IS NULL AND activated_at IS NULL) AS waitlisted,
            COUNT(*) FILTER (WHERE invited_at IS NOT NULL AND activated_at IS NULL) AS invited,
            COUNT(activated_at) AS activated
     FROM signups`,
  );

  return {
    async add(signup: Signup) {
      const result = insertSignup.run(signup.email.trim(), emailKey(signup.email), signup.description, now().toISOString());
      return result.changes === 1;
    },

    async count() {
      return (countSignups.get() as { n: number }).n;
    },

    async list(since = '') {
      return listSignups.all(sinceInstant(since)) as SignupRow[];
    },

    // better-sqlite3 steps through the rows one at a time; the generator hands each on as it comes.
    async *stream(since = '') {
      for (const row of listSignups.iterate(sinceInstant(since))) yield row as SignupRow;
    },

    async oldestWaiting(limit: number) {
      return (oldestWaiting.all(limit) as { email: string }[]).map((row) => row.email);
    },

    async stats() {
      return stats.get() as WaitlistStats;
    },
  };
}
