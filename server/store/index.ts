// The store: everything the site keeps (signups, activation keys and subscriptions, the outbox,
// the mail queue, the rate counters). The rules live once, here in store/ (signups.ts,
// subscriptions.ts, outbox.ts, mail-queue.ts, erasure.ts, …), each beside the interface it
// implements and written against sql.ts; each engine only runs them: sqlite/ under DATA_DIR for
// one instance, postgres/ at DATABASE_URL for several replicas (open.ts picks). Both keep the
// contract types.ts puts together.
export { DEFAULT_QUEUE_LIMITS } from './limits';
export { openSqliteStore, type SqliteStore, type StoreConfig } from './sqlite';
export type { Store } from './types';
