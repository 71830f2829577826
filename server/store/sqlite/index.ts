// The SQLite store (DATA_DIR/waitlist.db), for one instance: the shared rules (../*.ts) on one
// better-sqlite3 connection, and the rate counters in memory, since one process sees every request.
import type { Config } from '../../config';
import { queueLimits, type QueueLimits } from '../limits';
import { createStoreRules } from '../rules';
import type { Store } from '../types';
import { backupDatabase } from './backup';
import { openDatabase, schemaVersionOf, type Db } from './database';
import { createMemoryRateCounter } from '../memory-rate';
import { LATEST_VERSION } from '../migrations';
import { sqliteSql } from './sql';

/** The SQLite store also hands out its database, for tests that look inside. */
export interface SqliteStore extends Store {
  readonly engine: 'sqlite';
  db: Db;
}

export type StoreConfig = Pick<Config, 'dataDir'> &
  Partial<QueueLimits> & {
    /** False: the file is opened as it is, never created or migrated (commands that only read). */
    migrate?: boolean;
  };

/** `now` is injectable so tests can move time forward past the outbox and mail backoff. */
export function openSqliteStore(config: StoreConfig, now: () => number = Date.now): SqliteStore {
  const db = openDatabase(config.dataDir, { migrate: config.migrate });
  const { dataDir: _dataDir, migrate: _migrate, ...given } = config;
  const limits = queueLimits(given);
  const sql = sqliteSql(db);
  const rules = createStoreRules(sql, limits, now);
  // The erased rows are zeroed in their pages (secure_delete), but the WAL still holds the pages
  // as they were written before: a checkpoint copies the zeroed pages into the file and truncates
  // the WAL, so the address is nowhere in either (a reader holding an older snapshot can keep a
  // checkpoint from finishing; the next erasure's, or SQLite's own, does). After every erasure:
  // a leave, a removal, an expiry, and a provider's complaint.
  const truncateWal = () => sql.query('PRAGMA wal_checkpoint(TRUNCATE)');
  return {
    engine: 'sqlite',
    db,
    ...rules,
    async erase(email, options) {
      const erased = await rules.erase(email, options);
      if (erased.signup) await truncateWal();
      return erased;
    },
    bounces: {
      ...rules.bounces,
      async apply(provider, notice) {
        const outcome = await rules.bounces.apply(provider, notice);
        if (outcome.kind === 'left') await truncateWal();
        return outcome;
      },
    },
    rate: createMemoryRateCounter(now),
    backup: (file) => backupDatabase(db, file),
    async ping() {
      const version = schemaVersionOf(db);
      if (version < LATEST_VERSION)
        throw new Error(`schema version ${version}, expected ${LATEST_VERSION}`);
    },
    async schema() {
      return { found: schemaVersionOf(db), release: LATEST_VERSION };
    },
    async close() {
      db.close();
    },
  };
}
