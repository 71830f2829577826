// Signups and activation keys in SQLite (the embedded store, used when no BACKEND_URL is set). Every write is one statement or
// one transaction, committed before the function returns.
import { createHash, randomBytes } from 'node:crypto';
import { emailKey, type Signup } from '../../shared/signup';
import type { Db } from './db';

interface SignupRow {
  email: string;
  description: string;
  created_at: string;
  activated_at: string | null;
}

class UnknownEmailError extends Error {}

/** Keys are stored only as SHA-256 hashes: a copied database file activates nobody. */
function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** 24 random bytes (192 bits) as URL-safe base64: 32 characters, no padding. */
function newActivationKey(): string {
  return randomBytes(24).toString('base64url');
}

export function createSignups(db: Db, now: () => Date = () => new Date()) {
  const insertSignup = db.prepare(
    `INSERT INTO signups (email, email_key, description, created_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (email_key) DO NOTHING`,
  );
  const countSignups = db.prepare('SELECT COUNT(*) AS n FROM signups');
  const listSignups = db.prepare(
    `SELECT email, description, created_at, activated_at FROM signups
     WHERE created_at >= ? ORDER BY created_at DESC, id DESC`,
  );
  const findSignup = db.prepare('SELECT email_key FROM signups WHERE email_key = ?');
  const insertKey = db.prepare('INSERT INTO activation_keys (key_hash, email_key, created_at) VALUES (?, ?, ?)');
  const findKey = db.prepare('SELECT email_key FROM activation_keys WHERE key_hash = ?');
  const markActivated = db.prepare('UPDATE signups SET activated_at = ? WHERE email_key = ? AND activated_at IS NULL');

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

    /** Creates a new activation key for a waitlisted address and returns it (shown once). */
    issueKey(email: string): string {
      const key = emailKey(email);
      if (!findSignup.get(key)) throw new UnknownEmailError(`${email.trim()} is not on the waitlist`);
      const activationKey = newActivationKey();
      insertKey.run(hashKey(activationKey), key, now().toISOString());
      return activationKey;
    },

    /** True when the key was issued for this address; the first success records the activation time. */
    activate(email: string, activationKey: string): boolean {
      const row = findKey.get(hashKey(activationKey)) as { email_key: string } | undefined;
      if (!row || row.email_key !== emailKey(email)) return false;
      markActivated.run(now().toISOString(), row.email_key);
      return true;
    },
  };
}

export type Signups = ReturnType<typeof createSignups>;
