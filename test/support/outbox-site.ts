// The site in front of a real backend, with its store's outbox on a test clock: the store and the
// worker read `clock.now`, so a test moves time past the backoff instead of waiting for it. The
// worker polls only when a test flushes it. Everything opened here is closed after each test.
import { createApp } from '../../server/app';
import { startOutboxWorker } from '../../server/workers/outbox-worker';
import { createLogger } from '../../server/logger';
import { openSqliteStore, type Store } from '../../server/store';
import { startBackend, type TestBackend } from './backend';
import { testConfig } from './config';

export const silent = createLogger({ logLevel: 'silent' });

export function outboxSites() {
  const clock = { now: Date.now() };
  const now = () => clock.now;
  const opened: Store[] = [];
  const backends: TestBackend[] = [];

  afterEach(async () => {
    for (const store of opened.splice(0)) void store.close();
    for (const backend of backends.splice(0)) await backend.close();
  });

  /** A store on the test clock, closed after the test. */
  const storeFor = (config: Parameters<typeof openSqliteStore>[0]) => {
    const store = openSqliteStore(config, now);
    opened.push(store);
    return store;
  };

  return {
    clock,
    storeFor,

    /**
     * The site with BACKEND_URL on `backendPort` (embedded without one), its store, and a worker
     * for that store.
     */
    site(backendPort?: number, timeoutMs = 500) {
      const config = testConfig(
        backendPort === undefined
          ? {}
          : {
              BACKEND_URL: `http://127.0.0.1:${backendPort}`,
              UPSTREAM_TIMEOUT_MS: String(timeoutMs),
            },
      );
      const store = storeFor(config);
      const app = createApp(config, { store, logger: silent });
      const worker = (outbox = store.outbox) =>
        startOutboxWorker({
          outbox,
          backendUrl: config.backendUrl!,
          timeoutMs,
          logger: silent,
          pollMs: 60_000,
        });
      return { config, store, app, worker };
    },

    /** A real multer backend on `port` (any free one by default), closed after the test. */
    async backendOn(port = 0) {
      const backend = await startBackend(port);
      backends.push(backend);
      return backend;
    },
  };
}
