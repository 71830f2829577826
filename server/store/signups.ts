// The waitlist in SQLite (the embedded store, used when no BACKEND_URL is set): who signed up,
// and where each address stands (waitlisted → invited → activated). Every write is one statement,
// committed before the function returns.
import { emailKey, type Signup } from '../../shared/signup';
import type { Db } from './db';

export interface SignupRow {
  email: string;
  description: string;
  created_at: string;
  invited_at: string | null;
  activated_at: string | null;
}

export interface WaitlistStats {
  total: number;
  waitlisted: number;
  invited: number;
  activated: number;
}

export function createSignups(db: Db, now: () => Date = () => new Date()) {
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
    /** Adds a signup; a repeat (same address, any case or spacing) changes nothing. Returns true if new. */
    add(signup: Signup): boolean {
      const result = insertSignup.run(signup.email, emailKey(signup.email), signup.description, now().toISOString());
      return result.changes === 1;
    },

    count(): number {
      return (countSignups.get() as { n: number }).n;
    },

    /** Newest first; `since` is an ISO date or timestamp. */
    list(since = ''): SignupRow[] {
      return listSignups.all(since) as SignupRow[];
    },

    /** The `limit` oldest addresses neither invited nor activated yet (invite --next). */
    oldestWaiting(limit: number): string[] {
      return (oldestWaiting.all(limit) as { email: string }[]).map((row) => row.email);
    },

    /** Totals by state; each signup counts in exactly one of waitlisted, invited, activated. */
    stats(): WaitlistStats {
      return stats.get() as WaitlistStats;
    },
  };
}

export type Signups = ReturnType<typeof createSignups>;
