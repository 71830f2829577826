// The store: everything the site keeps (signups, activation keys and subscriptions, the outbox,
// the mail queue, the rate counters). DATABASE_URL set: PostgreSQL, shared by every replica;
// otherwise SQLite under DATA_DIR, for one instance. Both keep the contract of types.ts.
import type { Config } from '../config';
import { openDatabase, SCHEMA_VERSION, type Db } from './db';
import { createErasure } from './erasure';
import { createMailQueue } from './mail-queue';
import { createMemoryRateCounter } from './memory-rate';
import { queueLimits } from './limits';
import { createOutbox } from './outbox';
import { createSignups } from './signups';
import { createSubscriptions } from './subscriptions';
import type { QueueLimits, Store } from './types';

export { DEFAULT_QUEUE_LIMITS } from './limits';

export type { Store } from './types';

/** The SQLite store also hands out its database, for `backup` and for tests that look inside. */
export interface SqliteStore extends Store {
  readonly engine: 'sqlite';
  db: Db;
}

export type StoreConfig = Pick<Config, 'dataDir'> & Partial<QueueLimits>;

/** `now` is injectable so tests can move time forward past the outbox and mail backoff. */
export function openStore(config: StoreConfig, now: () => number = Date.now): SqliteStore {
  const db = openDatabase(config.dataDir);
  const limits = queueLimits({ outboxMaxItems: config.outboxMaxItems, mailMaxItems: config.mailMaxItems, maxAgeMs: config.maxAgeMs, outboxLeaseMs: config.outboxLeaseMs });
  const date = () => new Date(now());
  const mail = createMailQueue(db, limits, now);
  const erase = createErasure(db);
  return {
    engine: 'sqlite',
    db,
    signups: createSignups(db, date),
    subscriptions: createSubscriptions(db, mail, date),
    outbox: createOutbox(db, limits, now),
    mail,
    rate: createMemoryRateCounter(now),
    erase,
    async backup(file) {
      await db.backup(file);
    },
    async ping() {
      const version = db.pragma('user_version', { simple: true }) as number;
      if (version < SCHEMA_VERSION) throw new Error(`schema version ${version}, expected ${SCHEMA_VERSION}`);
    },
    async close() {
      db.close();
    },
  };
}
