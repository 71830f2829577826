// Keys kept in the store for what the site signs (the console's device cookies, the bot guard's
// challenges and issue times), for both engines: made once by whichever replica needs one first,
// the same on every replica from then on.
import { newKey } from './secrets';
import type { Sql } from './sql';

/** Keys the console keeps in the store, made by whichever replica needs one first. */
export interface ConsoleKeys {
  /** The key of that name: 32 random bytes as base64url, the same on every replica, for good. */
  get(name: string): Promise<string>;
}

export function createConsoleKeys(sql: Sql, now: () => number): ConsoleKeys {
  // A key never changes once made: read once per process.
  const known = new Map<string, Promise<string>>();
  const load = async (name: string) => {
    // Whichever replica comes first makes it; the others read the one it made.
    await sql.query(
      `INSERT INTO console_keys (name, secret, created_at)
       VALUES ($1, $2, $3)
       ON CONFLICT (name) DO NOTHING`,
      [name, newKey(), new Date(now()).toISOString()],
    );
    const { rows } = await sql.query<{ secret: string }>(
      `SELECT secret
       FROM console_keys
       WHERE name = $1`,
      [name],
    );
    return rows[0].secret;
  };
  return {
    get(name) {
      let key = known.get(name);
      if (!key) {
        key = load(name);
        // A failed read (the store away) is tried again next time, not remembered.
        key.catch(() => known.delete(name));
        known.set(name, key);
      }
      return key;
    },
  };
}
