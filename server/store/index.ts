// The store: everything the site keeps (signups, activation keys and subscriptions, the outbox,
// the mail queue, the rate counters). DATABASE_URL set: PostgreSQL, shared by every replica;
// otherwise SQLite under DATA_DIR, for one instance. Both keep the contract of types.ts.
import type { Config } from '../config';
import { openDatabase, SCHEMA_VERSION, type Db } from './db';
import { createErasure } from './erasure';
import { createMailQueue } from './mail-queue';
import { createMemoryRateCounter } from './memory-rate';
import { createOutbox, outboxLeaseFor } from './outbox';
import { createSignups } from './signups';
import { createSubscriptions } from './subscriptions';
import type { QueueLimits, Store } from './types';

export type { Store } from './types';

/** The SQLite store also hands out its database, for `backup` and for tests that look inside. */
export interface SqliteStore extends Store {
  readonly engine: 'sqlite';
  db: Db;
}

export type StoreConfig = Pick<Config, 'dataDir'> & Partial<QueueLimits>;

/** What the queues hold at most when no setting says otherwise (README, "Configuration"). */
export const DEFAULT_QUEUE_LIMITS: QueueLimits = { outboxMaxItems: 100_000, mailMaxItems: 100_000, maxAgeMs: 7 * 24 * 3_600_000, outboxLeaseMs: outboxLeaseFor(10_000) };

function limitsOf(config: Partial<QueueLimits>): QueueLimits {
  return { ...DEFAULT_QUEUE_LIMITS, ...Object.fromEntries(Object.entries(config).filter(([, v]) => v !== undefined)) } as QueueLimits;
}

/** `now` is injectable so tests can move time forward past the outbox and mail backoff. */
export function openStore(config: StoreConfig, now: () => number = Date.now): SqliteStore {
  const db = openDatabase(config.dataDir);
  const limits = limitsOf({ outboxMaxItems: config.outboxMaxItems, mailMaxItems: config.mailMaxItems, maxAgeMs: config.maxAgeMs, outboxLeaseMs: config.outboxLeaseMs });
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
    async ping() {
      const version = db.pragma('user_version', { simple: true }) as number;
      if (version !== SCHEMA_VERSION) throw new Error(`schema version ${version}, expected ${SCHEMA_VERSION}`);
    },
    async close() {
      db.close();
    },
  };
}
