// Versioned schema migrations of the PostgreSQL store, applied at start-up. All pending versions
// go in one transaction that first takes a transaction-level advisory lock: replicas starting at
// the same moment on an empty database queue on the lock, and each one after the first finds
// nothing left to do. A database newer than this release stops start-up rather than be written
// by code that does not know its schema.
import type pg from 'pg';
import { withTimeout } from './connection';
import { sql as initial } from './migrations/001-initial';
import { sql as addresses } from './migrations/002-addresses';
import { sql as consoleSchema } from './migrations/003-console';
import { sql as consoleEvidence } from './migrations/004-console-evidence';
import { sql as auditChain } from './migrations/005-audit-chain';
import { sql as deviceCookies } from './migrations/006-device-cookies';
import { sql as leaveRequests } from './migrations/007-leave-requests';
import { sql as welcomeMail } from './migrations/008-welcome-mail';
import { sql as webhooks } from './migrations/009-webhooks';
import { sql as signupEvents } from './migrations/010-signup-events';
import { sql as botGuard } from './migrations/011-bot-guard';
import { sql as webhookNames } from './migrations/012-webhook-names';

/** One module per version under migrations/, in order; a version is never edited once released. */
export const MIGRATIONS: readonly { version: number; sql: string }[] = [
  { version: 1, sql: initial },
  { version: 2, sql: addresses },
  { version: 3, sql: consoleSchema },
  { version: 4, sql: consoleEvidence },
  { version: 5, sql: auditChain },
  { version: 6, sql: deviceCookies },
  { version: 7, sql: leaveRequests },
  { version: 8, sql: welcomeMail },
  { version: 9, sql: webhooks },
  { version: 10, sql: signupEvents },
  { version: 11, sql: botGuard },
  { version: 12, sql: webhookNames },
];

export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;

/**
 * pg_advisory_xact_lock's key for "migrating the OrgNote site's schema" (any constant no one else
 * uses).
 */
const MIGRATION_LOCK = 4_172_010_001;

/**
 * A migration may rewrite a big table, and a replica waits on the lock while another migrates:
 * neither is bound by the store's per-call timeout. Reaching the server still is.
 */
const MIGRATION_TIMEOUT_MS = 10 * 60_000;

export class SchemaTooNewError extends Error {
  constructor(
    readonly version: number,
    readonly latest: number,
  ) {
    super(
      `database schema version ${version} is newer than this release (${latest}); upgrade the site`,
    );
    this.name = 'SchemaTooNewError';
  }
}

/** The highest version applied, 0 for an empty database. */
export async function schemaVersion(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ present: boolean }>(
    "SELECT to_regclass('schema_migrations') IS NOT NULL AS present",
  );
  if (!rows[0].present) return 0;
  const applied = await pool.query<{ version: number | null }>(
    'SELECT max(version) AS version FROM schema_migrations',
  );
  return applied.rows[0].version ?? 0;
}

/**
 * Brings the database to LATEST_VERSION; returns the versions this call applied (none if current).
 */
export async function migrate(pool: pg.Pool): Promise<number[]> {
  const client = await pool.connect();
  const query = (text: string, values?: unknown[]) =>
    client.query(withTimeout({ text, values }, MIGRATION_TIMEOUT_MS));
  let broken = false;
  try {
    await query('BEGIN');
    try {
      await query(`SET LOCAL statement_timeout = ${MIGRATION_TIMEOUT_MS}`);
      await query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
      await query(
        'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
      );
      const { rows } = (await query(
        'SELECT COALESCE(max(version), 0) AS version FROM schema_migrations',
      )) as pg.QueryResult<{ version: number }>;
      const current = Number(rows[0].version);
      if (current > LATEST_VERSION) throw new SchemaTooNewError(current, LATEST_VERSION);
      const pending = MIGRATIONS.filter((m) => m.version > current);
      for (const { version, sql } of pending) {
        await query(sql);
        await query('INSERT INTO schema_migrations (version) VALUES ($1)', [version]);
      }
      await query('COMMIT');
      return pending.map((m) => m.version);
    } catch (err) {
      await query('ROLLBACK').catch(() => {
        broken = true;
      });
      throw err;
    }
  } finally {
    client.release(broken);
  }
}
