// The console's accounts, sessions and audit log, for both engines. Accounts are keyed
// by the normalised address like signups; a session is stored only as the SHA-256 of its id and
// ends when idle too long, when too old, at logout, or when the account's password or second
// factor changes. The audit log records who did what, from which client address (kept 90 days),
// and how many addresses of the waitlist it touched, never one of them. Each entry carries the hash
// of the one before it, so an entry changed or deleted by hand breaks the chain that verify walks.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { emailKey } from '../../shared/form-checks';
import type { Queryable, Sql } from './sql';
import type {
  AdminAccount,
  AdminCredentials,
  Admins,
  AdminSessions,
  AuditEntry,
  AuditLog,
  ConsoleKeys,
} from './types';

export function createAdmins(sql: Sql, now: () => number): Admins {
  const iso = () => new Date(now()).toISOString();
  return {
    async add(email, passwordHash) {
      const time = iso();
      const { rowCount } = await sql.query(
        `INSERT INTO admins (email_key, email, password_hash, created_at, password_changed_at, device_generation)
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
        'SELECT email, created_at, totp_secret IS NOT NULL AS totp FROM admins ORDER BY created_at, email_key',
      );
      return rows.map((row): AdminAccount => ({
        email: row.email,
        createdAt: row.created_at,
        totp: Boolean(row.totp),
      }));
    },

    async count() {
      return Number((await sql.query<{ n: number }>('SELECT COUNT(*) AS n FROM admins')).rows[0].n);
    },

    async remove(email) {
      return sql.transaction(async (tx) => {
        await tx.query('DELETE FROM admin_sessions WHERE admin_key = $1', [emailKey(email)]);
        return (
          (await tx.query('DELETE FROM admins WHERE email_key = $1', [emailKey(email)]))
            .rowCount === 1
        );
      });
    },

    async setPassword(email, passwordHash) {
      return sql.transaction(async (tx) => {
        const changed = await tx.query(
          `UPDATE admins SET password_hash = $1, password_changed_at = $2, device_generation = $3
           WHERE email_key = $4`,
          [passwordHash, iso(), newKey(), emailKey(email)],
        );
        // Whoever held a session with the old password holds nothing now.
        await tx.query('DELETE FROM admin_sessions WHERE admin_key = $1', [emailKey(email)]);
        return changed.rowCount === 1;
      });
    },

    async setTotp(email, secret) {
      return sql.transaction(async (tx) => {
        const changed = await tx.query(
          `UPDATE admins SET totp_secret = $1, totp_step = NULL, device_generation = $2
           WHERE email_key = $3`,
          [secret, newKey(), emailKey(email)],
        );
        // A session opened under the old second factor (or none) must log in again under the new.
        await tx.query('DELETE FROM admin_sessions WHERE admin_key = $1', [emailKey(email)]);
        return changed.rowCount === 1;
      });
    },

    async acceptTotpStep(email, step) {
      // One conditional statement: PostgreSQL checks the condition again on the row a concurrent
      // claim just updated, and SQLite runs one writer at a time, so a step is claimed once.
      const { rowCount } = await sql.query(
        `UPDATE admins SET totp_step = $1
         WHERE email_key = $2 AND totp_secret IS NOT NULL AND (totp_step IS NULL OR totp_step < $1)`,
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
        'SELECT email, password_hash, totp_secret, device_generation FROM admins WHERE email_key = $1',
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

export function createAdminSessions(sql: Sql, now: () => number): AdminSessions {
  return {
    async start(email, idHash) {
      const time = new Date(now()).toISOString();
      await sql.query(
        'INSERT INTO admin_sessions (id_hash, admin_key, created_at, last_seen_at) VALUES ($1, $2, $3, $3)',
        [idHash, emailKey(email), time],
      );
    },

    async touch(idHash, { idleMs, maxMs }) {
      const at = now();
      const time = new Date(at).toISOString();
      // One statement: a live session is seen now; an expired one is not (and is deleted below).
      const { rows } = await sql.query<{ email: string }>(
        `UPDATE admin_sessions SET last_seen_at = $1
         WHERE id_hash = $2 AND last_seen_at > $3 AND created_at > $4
         RETURNING (SELECT email FROM admins WHERE admins.email_key = admin_sessions.admin_key) AS email`,
        [time, idHash, new Date(at - idleMs).toISOString(), new Date(at - maxMs).toISOString()],
      );
      if (rows[0]) return { email: rows[0].email };
      await sql.query('DELETE FROM admin_sessions WHERE id_hash = $1', [idHash]);
      return undefined;
    },

    async end(idHash) {
      await sql.query('DELETE FROM admin_sessions WHERE id_hash = $1', [idHash]);
    },
  };
}

/** 32 random bytes as base64url: a device generation, or a console key. */
const newKey = () => randomBytes(32).toString('base64url');

export function createConsoleKeys(sql: Sql, now: () => number): ConsoleKeys {
  // A key never changes once made: read once per process.
  const known = new Map<string, Promise<string>>();
  const load = async (name: string) => {
    // Whichever replica comes first makes it; the others read the one it made.
    await sql.query(
      'INSERT INTO console_keys (name, secret, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING',
      [name, newKey(), new Date(now()).toISOString()],
    );
    const { rows } = await sql.query<{ secret: string }>(
      'SELECT secret FROM console_keys WHERE name = $1',
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
        'SELECT 1 FROM audit_log WHERE account = $1 AND action = $2 AND at >= $3 LIMIT 1',
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
      'SELECT seq, hash FROM audit_log WHERE seq IS NOT NULL ORDER BY seq DESC LIMIT 1',
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
    await tx.query('UPDATE audit_log SET client = NULL WHERE client IS NOT NULL AND at < $1', [
      new Date(at - AUDIT_CLIENT_DAYS * 24 * 60 * 60_000).toISOString(),
    ]);
  }

  return {
    async record(entry) {
      await sql.transaction(async (tx) => {
        await lockChain(tx);
        await append(tx, entry);
      });
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
          ? `SELECT ${columns} FROM audit_log WHERE at < $2 OR (at = $2 AND id < $3) ORDER BY at DESC, id DESC LIMIT $1`
          : `SELECT ${columns} FROM audit_log ORDER BY at DESC, id DESC LIMIT $1`,
        before ? [limit, before.at, before.id] : [limit],
      );
      return rows.map((row) => ({ ...row, addresses: Number(row.addresses) }));
    },

    async verify() {
      const unchained = Number(
        (
          await sql.query<{ n: number | string }>(
            'SELECT COUNT(*) AS n FROM audit_log WHERE seq IS NULL',
          )
        ).rows[0].n,
      );
      let verified = 0;
      let expected = CHAIN_START;
      const rows = sql.stream<ChainRow>(
        'SELECT id, at, account, action, addresses, prev_hash, hash FROM audit_log WHERE seq IS NOT NULL ORDER BY seq',
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
