// The PostgreSQL store (DATABASE_URL): everything the site keeps, shared by every replica. The
// rules are the shared ones (../*.ts); what only PostgreSQL needs is here: the schema migrated at
// start-up under an advisory lock (migrate.ts), row locks and SKIP LOCKED for the rules' claims
// (connection.ts, postgresSql), rate counters every replica shares (rate.ts), and
// StoreUnavailableError (503 with Retry-After) instead of a hang or a 500 while the database is
// away (connection.ts).
import type pg from 'pg';
import { queueLimits, type QueueLimits } from '../limits';
import { createStoreRules } from '../rules';
import type { Store } from '../types';
import { asStoreError, connectPool, postgresSql } from './connection';
import { LATEST_VERSION } from '../migrations';
import { migrate, schemaVersion } from './migrate';
import { createRateCounter } from './rate';

export { migrate, schemaVersion, SchemaTooNewError } from './migrate';

/** The PostgreSQL store also hands out its pool, for tests that look inside. */
export interface PostgresStore extends Store {
  readonly engine: 'postgres';
  pool: pg.Pool;
}

export interface PostgresStoreOptions {
  databaseUrl: string;
  /** No call waits longer than this (DATABASE_TIMEOUT_MS): past it, StoreUnavailableError. */
  timeoutMs: number;
  limits?: Partial<QueueLimits>;
  /** Injectable so tests can move time forward past backoffs, leases and the maximum age. */
  now?: () => number;
  /** Connections per replica (pg.Pool's max); 10 by default. */
  poolSize?: number;
  /** False: the schema is left as it is (waitlist commands that only read); true by default. */
  migrate?: boolean;
}

/**
 * Connects and brings the schema up to date (unless `migrate: false`). Rejects with
 * StoreUnavailableError when PostgreSQL cannot be reached (the caller decides whether to try
 * again), with SchemaTooNewError for a database a newer release has migrated.
 */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  const { databaseUrl, timeoutMs, now = Date.now, poolSize, migrate: migrating = true } = options;
  const limits = queueLimits(options.limits);
  const db = connectPool(databaseUrl, timeoutMs, poolSize);
  try {
    // Without migrating, reading the version still proves the server answers.
    await (migrating ? migrate(db.pool) : schemaVersion(db.pool));
  } catch (err) {
    await db.pool.end().catch(() => {});
    throw asStoreError(err);
  }
  const sql = postgresSql(db);
  return {
    engine: 'postgres',
    pool: db.pool,
    ...createStoreRules(sql, limits, now),
    rate: createRateCounter(db, now),
    async ping() {
      const { rows } = await db.query<{ version: number | null }>(
        `SELECT max(version) AS version
         FROM schema_migrations`,
      );
      const version = rows[0].version ?? 0;
      // Older than this release: not ready. Newer (a replica of the next release migrated first,
      // during a rolling upgrade): still ready; migrations only add to the schema.
      if (version < LATEST_VERSION)
        throw new Error(`schema version ${version}, expected ${LATEST_VERSION}`);
    },
    async schema() {
      return { found: await schemaVersion(db.pool), release: LATEST_VERSION };
    },
    async close() {
      await db.pool.end();
    },
  };
}
