// The PostgreSQL store (DATABASE_URL): everything the site keeps, shared by every replica. It
// keeps the contract of ../types.ts exactly as the SQLite store does; what only PostgreSQL needs
// is here: the schema migrated at start-up (migrate.ts), queues claimed across replicas (SKIP
// LOCKED and a lease), rate counters every replica shares, and StoreUnavailableError (503 with
// Retry-After) instead of a hang or a 500 while the database is away (connection.ts).
import type pg from 'pg';
import { queueLimits } from '../limits';
import type { QueueLimits, Store } from '../types';
import { asStoreError, connectPool } from './connection';
import { createErasure } from './erasure';
import { createMailQueue } from './mail-queue';
import { LATEST_VERSION, migrate } from './migrate';
import { createOutbox } from './outbox';
import { createRateCounter } from './rate';
import { createSignups } from './signups';
import { createSubscriptions } from './subscriptions';

export { LATEST_VERSION, migrate, schemaVersion, SchemaTooNewError } from './migrate';

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
}

/**
 * Connects and brings the schema up to date. Rejects with StoreUnavailableError when PostgreSQL
 * cannot be reached (the caller decides whether to try again), with SchemaTooNewError for a
 * database a newer release has migrated.
 */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  const { databaseUrl, timeoutMs, now = Date.now, poolSize } = options;
  const limits = queueLimits(options.limits);
  const db = connectPool(databaseUrl, timeoutMs, poolSize);
  try {
    await migrate(db.pool);
  } catch (err) {
    await db.pool.end().catch(() => {});
    throw asStoreError(err);
  }
  const date = () => new Date(now());
  return {
    engine: 'postgres',
    pool: db.pool,
    signups: createSignups(db, date),
    subscriptions: createSubscriptions(db, limits, now),
    outbox: createOutbox(db, limits, now),
    mail: createMailQueue(db, limits, now),
    rate: createRateCounter(db, now),
    erase: createErasure(db),
    async ping() {
      const { rows } = await db.query<{ version: number | null }>('SELECT max(version) AS version FROM schema_migrations');
      const version = rows[0].version ?? 0;
      // Older than this release: not ready. Newer (a replica of the next release migrated first,
      // during a rolling upgrade): still ready; migrations only add to the schema.
      if (version < LATEST_VERSION) throw new Error(`schema version ${version}, expected ${LATEST_VERSION}`);
    },
    async close() {
      await db.pool.end();
    },
  };
}
