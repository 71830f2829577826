// The one list of versions (../migrations) applied to the PostgreSQL store at start-up, each
// recorded as a row of schema_migrations. All pending versions go in one transaction that first
// takes a transaction-level advisory lock: replicas starting at the same moment on an empty
// database queue on the lock, and each one after the first finds nothing left to do. A database
// newer than this release stops start-up rather than be written by code that does not know its
// schema.
import type pg from 'pg';
import { LATEST_VERSION, migrationSql } from '../migrations';
import { withTimeout } from './connection';

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

const SCHEMA_MIGRATIONS = `
CREATE TABLE IF NOT EXISTS schema_migrations (
  version INTEGER PRIMARY KEY,
  applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
)`;

const RECORD_VERSION = `
INSERT INTO schema_migrations (version)
VALUES ($1)`;

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
  const applied = await pool.query<{ version: number | null }>(`
    SELECT max(version) AS version
    FROM schema_migrations`);
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
      await query(SCHEMA_MIGRATIONS);
      const { rows } = (await query(`
        SELECT COALESCE(max(version), 0) AS version
        FROM schema_migrations`)) as pg.QueryResult<{ version: number }>;
      const current = Number(rows[0].version);
      if (current > LATEST_VERSION) throw new SchemaTooNewError(current, LATEST_VERSION);
      const applied: number[] = [];
      for (let version = current + 1; version <= LATEST_VERSION; version++) {
        await query(migrationSql(version, 'postgres'));
        await query(RECORD_VERSION, [version]);
        applied.push(version);
      }
      await query('COMMIT');
      return applied;
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
