// Who left is never brought back (decision 0034). An erasure (a leave link, /leave, `waitlist
// remove`, the console, the expiry of an unconfirmed address) and an imported list's refusals
// (listmonk's blocklisted, Mailchimp's unsubscribed and cleaned) suppress the address: one row
// holding the HMAC-SHA256 of its normalised form (emailKey) under a key kept in the store, never
// the address. An import skips a suppressed address; a person who signs up again themselves
// lifts it (signups.ts). The key lives in the store, not in the settings, so every replica and
// every restored backup hashes alike, and a copy of the suppressions alone names nobody.
import { createHmac, randomBytes } from 'node:crypto';
import { emailKey } from '../../shared/form-checks';
import type { Queryable, Sql } from './sql';

/** Why an address is suppressed: an erasure's reason, or the imported list's status for it. */
export type SuppressionReason =
  | 'left'
  | 'removed'
  | 'expired'
  | 'blocklisted'
  | 'unsubscribed'
  | 'cleaned'
  | 'complained'
  | 'bounced';

export interface Suppressions {
  /** True when the address (any case or spacing) is suppressed. */
  has(email: string): Promise<boolean>;
  /** Of these addresses, the emailKey()s of those suppressed (one query a batch). */
  suppressedAmong(emails: readonly string[]): Promise<Set<string>>;
  /** Suppresses the addresses (one already suppressed keeps its reason); how many were new. */
  add(emails: readonly string[], reason: SuppressionReason): Promise<number>;
  /** Lifts a suppression (the person signed up again); true if there was one. */
  remove(email: string): Promise<boolean>;
  count(): Promise<number>;
}

/** The keyed hash of an address, as the suppression list stores it. */
export type AddressHash = (email: string) => Promise<string>;

const KEY_NAME = 'suppression';

/** How many hashes one `IN (…)` looks up: well under either engine's parameter limit. */
const LOOKUP_BATCH = 500;

/**
 * The store's HMAC of an address. The key is made by the first replica that needs it (an insert
 * that does nothing when another replica's is there) and read back, so all of them use one.
 */
export function createAddressHash(sql: Sql): AddressHash {
  let key: Promise<Buffer> | undefined;
  const load = async () => {
    await sql.query(
      `INSERT INTO store_keys (name, key)
       VALUES ($1, $2)
       ON CONFLICT (name) DO NOTHING`,
      [KEY_NAME, randomBytes(32).toString('base64url')],
    );
    const { rows } = await sql.query<{ key: string }>(
      `SELECT key
       FROM store_keys
       WHERE name = $1`,
      [KEY_NAME],
    );
    return Buffer.from(rows[0].key, 'base64url');
  };
  return async (email) => {
    // A failed read (the database away) is tried again by the next caller, not kept.
    key ??= load().catch((err: unknown) => {
      key = undefined;
      throw err;
    });
    return createHmac('sha256', await key)
      .update(emailKey(email), 'utf8')
      .digest('hex');
  };
}

/** Inside a transaction (an erasure): suppresses one hashed address; true if it was new. */
export async function suppressHashed(
  tx: Queryable,
  hash: string,
  reason: SuppressionReason,
  at: number,
): Promise<boolean> {
  const { rowCount } = await tx.query(
    `INSERT INTO suppressions (address_hash, reason, created_at)
     VALUES ($1, $2, $3)
     ON CONFLICT (address_hash) DO NOTHING`,
    [hash, reason, new Date(at).toISOString()],
  );
  return rowCount === 1;
}

export function createSuppressions(
  sql: Sql,
  hashAddress: AddressHash,
  now: () => number,
): Suppressions {
  return {
    async has(email) {
      const { rows } = await sql.query(
        `SELECT 1 AS one
         FROM suppressions
         WHERE address_hash = $1`,
        [await hashAddress(email)],
      );
      return rows.length === 1;
    },

    async suppressedAmong(emails) {
      const byHash = new Map<string, string>();
      for (const email of emails) byHash.set(await hashAddress(email), emailKey(email));
      const found = new Set<string>();
      const hashes = [...byHash.keys()];
      for (let i = 0; i < hashes.length; i += LOOKUP_BATCH) {
        const batch = hashes.slice(i, i + LOOKUP_BATCH);
        const { rows } = await sql.query<{ address_hash: string }>(
          `SELECT address_hash
           FROM suppressions
           WHERE address_hash IN (${batch.map((_, n) => `$${n + 1}`).join(', ')})`,
          batch,
        );
        for (const row of rows) found.add(byHash.get(row.address_hash)!);
      }
      return found;
    },

    async add(emails, reason) {
      const hashes = new Set<string>();
      for (const email of emails) hashes.add(await hashAddress(email));
      const at = now();
      let added = 0;
      await sql.transaction(async (tx) => {
        for (const hash of hashes) if (await suppressHashed(tx, hash, reason, at)) added += 1;
      });
      return added;
    },

    async remove(email) {
      const { rowCount } = await sql.query(
        `DELETE FROM suppressions
         WHERE address_hash = $1`,
        [await hashAddress(email)],
      );
      return rowCount === 1;
    },

    async count() {
      const { rows } = await sql.query<{ n: number }>(
        `SELECT COUNT(*) AS n
         FROM suppressions`,
      );
      return Number(rows[0].n);
    },
  };
}
