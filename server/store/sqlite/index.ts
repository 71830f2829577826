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
  return {
    engine: 'sqlite',
    db,
    ...createStoreRules(sql, limits, now),
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
