// The console's audit log, for both engines. It records who did what, from which client address
// (kept AUDIT_CLIENT_DAYS), and how many addresses of the waitlist it touched, never one of them.
// Each entry carries the hash of the one before it, so an entry changed or deleted by hand breaks
// the chain that verify walks.
import { createHash, randomUUID } from 'node:crypto';
import type { Queryable, Sql } from './sql';

export interface AuditEntry {
  id: string;
  at: string;
  account: string;
  action: string;
  /** How many addresses the action touched; the addresses themselves are never recorded. */
  addresses: number;
  /**
   * The client address of the request that acted; null for the CLI, and once AUDIT_CLIENT_DAYS
   * have passed.
   */
  client: string | null;
}

export interface AuditLog {
  /** `client` is absent when no request acted (the CLI). */
  record(
    entry: Pick<AuditEntry, 'account' | 'action' | 'addresses'> & { client?: string },
  ): Promise<void>;
  /**
   * Records the entry unless the account already has an entry with this action at or after
   * `since`: one entry per window however often the action repeats. True when it recorded.
   */
  recordOnce(
    entry: Pick<AuditEntry, 'account' | 'action' | 'addresses'> & { client?: string },
    since: string,
  ): Promise<boolean>;
  /**
   * Records the entry in the caller's transaction, which holds the chain until it ends: the entry
   * and what it records commit together, or neither does.
   */
  recordIn(tx: Queryable, entry: NewAuditEntry): Promise<void>;
  /** Newest first, `limit` at a time; `before` is the last entry of the page before (keyset). */
  list(options: { limit: number; before?: Pick<AuditEntry, 'at' | 'id'> }): Promise<AuditEntry[]>;
  /** Walks the hash chain from its first entry, and stops at the first link that does not hold. */
  verify(): Promise<AuditVerdict>;
}

/**
 * What a walk of the audit log's chain found. `unchained`: entries from before the chain began
 * (schema version 5, migrations/005-audit-chain.ts), which it does not cover.
 */
export type AuditVerdict =
  | { kind: 'intact'; verified: number; unchained: number }
  | {
      kind: 'broken';
      verified: number;
      unchained: number;
      /** The first entry whose link does not hold. */
      entry: Pick<AuditEntry, 'id' | 'at'>;
      /**
       * 'changed': its fields are not what was hashed; 'gap': the entry before it is not the one
       * it followed (deleted, or changed).
       */
      reason: 'changed' | 'gap';
    };

/** How long an audit entry keeps its client address (decision 0017). */
export const AUDIT_CLIENT_DAYS = 90;

export function createAuditLog(sql: Sql, now: () => number): AuditLog {
  const alreadySince = async (
    db: Queryable,
    entry: { account: string; action: string },
    since: string,
  ) =>
    (
      await db.query(
        `SELECT 1
         FROM audit_log
         WHERE account = $1 AND action = $2 AND at >= $3
         LIMIT 1`,
        [entry.account, entry.action, since],
      )
    ).rows.length > 0;

  // One append at a time across replicas: PostgreSQL queues on the lock until the transaction
  // ends; SQLite's IMMEDIATE transaction already excludes every other writer.
  const lockChain = async (tx: Queryable) => {
    if (sql.engine === 'postgres') await tx.query(`SELECT pg_advisory_xact_lock(${AUDIT_LOCK})`);
  };

  /** Appends after the chain's last entry, in the caller's transaction, which holds lockChain. */
  async function append(tx: Queryable, { account, action, addresses, client }: NewAuditEntry) {
    const last = await tx.query<{ seq: number | string; hash: string }>(
      `SELECT seq, hash
       FROM audit_log
       WHERE seq IS NOT NULL
       ORDER BY seq DESC
       LIMIT 1`,
    );
    const at = now();
    const prevHash = last.rows[0]?.hash ?? CHAIN_START;
    const linked = { id: randomUUID(), at: new Date(at).toISOString(), account, action, addresses };
    await tx.query(
      `INSERT INTO audit_log (id, at, account, action, addresses, client, seq, prev_hash, hash)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        linked.id,
        linked.at,
        account,
        action,
        addresses,
        client ?? null,
        Number(last.rows[0]?.seq ?? 0) + 1,
        prevHash,
        chainHash(prevHash, linked),
      ],
    );
    // Retention at write time: it holds on every replica whatever workers run, in the same
    // sync as the insert, and through audit_log_client_at it reads only what it clears. The
    // client address is outside the hash, so clearing it leaves the chain whole.
    await tx.query(
      `UPDATE audit_log
       SET client = NULL
       WHERE client IS NOT NULL AND at < $1`,
      [new Date(at - AUDIT_CLIENT_DAYS * 24 * 60 * 60_000).toISOString()],
    );
  }

  return {
    async record(entry) {
      await sql.transaction(async (tx) => {
        await lockChain(tx);
        await append(tx, entry);
      });
    },

    async recordIn(tx, entry) {
      await lockChain(tx);
      await append(tx, entry);
    },

    async recordOnce(entry, since) {
      // Read first without the lock: every repeat after the window's first costs one indexed read.
      if (await alreadySince(sql, entry, since)) return false;
      return sql.transaction(async (tx) => {
        await lockChain(tx);
        if (await alreadySince(tx, entry, since)) return false;
        await append(tx, entry);
        return true;
      });
    },

    async list({ limit, before }) {
      const columns = 'id, at, account, action, addresses, client';
      const { rows } = await sql.query<AuditEntry>(
        before
          ? `SELECT ${columns}
             FROM audit_log
             WHERE at < $2 OR (at = $2 AND id < $3)
             ORDER BY at DESC, id DESC
             LIMIT $1`
          : `SELECT ${columns}
             FROM audit_log
             ORDER BY at DESC, id DESC
             LIMIT $1`,
        before ? [limit, before.at, before.id] : [limit],
      );
      return rows.map((row) => ({ ...row, addresses: Number(row.addresses) }));
    },

    async verify() {
      const unchained = Number(
        (
          await sql.query<{ n: number | string }>(
            `SELECT COUNT(*) AS n
             FROM audit_log
             WHERE seq IS NULL`,
          )
        ).rows[0].n,
      );
      let verified = 0;
      let expected = CHAIN_START;
      const rows = sql.stream<ChainRow>(
        `SELECT id, at, account, action, addresses, prev_hash, hash
         FROM audit_log
         WHERE seq IS NOT NULL
         ORDER BY seq`,
        [],
        1000,
      );
      for await (const row of rows) {
        const reason =
          row.prev_hash !== expected
            ? 'gap'
            : chainHash(expected, { ...row, addresses: Number(row.addresses) }) !== row.hash
              ? 'changed'
              : undefined;
        if (reason)
          return { kind: 'broken', verified, unchained, entry: { id: row.id, at: row.at }, reason };
        expected = row.hash;
        verified++;
      }
      return { kind: 'intact', verified, unchained };
    },
  };
}

type NewAuditEntry = Pick<AuditEntry, 'account' | 'action' | 'addresses'> & { client?: string };
type ChainedFields = Pick<AuditEntry, 'id' | 'at' | 'account' | 'action' | 'addresses'>;
type ChainRow = ChainedFields & { prev_hash: string; hash: string };

/** pg_advisory_xact_lock's key for "appending to the audit log" (MIGRATION_LOCK's neighbour). */
const AUDIT_LOCK = 4_172_010_002;

/** What the first entry of the chain follows. */
const CHAIN_START = '0'.repeat(64);

/**
 * SHA-256 over the previous hash and the fields an erasure or the address retention never
 * changes, as a JSON array: strings are quoted and escaped, so no two entries encode alike.
 */
function chainHash(prevHash: string, { id, at, account, action, addresses }: ChainedFields) {
  return createHash('sha256')
    .update(JSON.stringify([prevHash, id, at, account, action, addresses]))
    .digest('hex');
}
