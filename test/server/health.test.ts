// The probes under a flood: /healthz answers from what it read in the background, never asking
// the store per request, and /readyz asks the store at most once a second, however many ask.
import request from 'supertest';
import { createApp } from '../../server/app';
import { openSqliteStore, type Store } from '../../server/store';
import { testConfig } from '../support/config';
import { until } from '../support/wait';

/** The store, with a count of the calls to `outbox.depth` and to `ping`. */
function countedStore(config = testConfig()) {
  const store: Store = openSqliteStore(config);
  const calls = { depth: 0, ping: 0 };
  const depth = store.outbox.depth.bind(store.outbox);
  const ping = store.ping.bind(store);
  store.outbox.depth = () => (calls.depth++, depth());
  store.ping = () => (calls.ping++, ping());
  return { config, store, calls };
}

/**
 * `count` requests, 10 at a time, each answered before the next on its lane: their statuses, and
 * how many seconds they took.
 */
async function flood(app: ReturnType<typeof createApp>, path: string, count: number) {
  const started = Date.now();
  const statuses: number[] = [];
  await Promise.all(
    Array.from({ length: 10 }, async (_, lane) => {
      for (let i = lane; i < count; i += 10) statuses.push((await request(app).get(path)).status);
    }),
  );
  return { statuses, seconds: (Date.now() - started) / 1000 };
}

describe('probes under load', () => {
  it('/healthz answers 200 requests from memory: the store is read about once a second', async () => {
    const { config, store, calls } = countedStore();
    const app = createApp(config, { store });
    const { statuses, seconds } = await flood(app, '/healthz', 200);
    expect(statuses.every((status) => status === 200)).toBe(true);
    expect(calls.depth).toBeGreaterThanOrEqual(1);
    expect(calls.depth).toBeLessThanOrEqual(Math.ceil(seconds) + 1);
    await store.close();
  });

  it('/healthz follows the outbox in the background', async () => {
    const { config, store } = countedStore();
    const app = createApp(config, { store });
    expect((await request(app).get('/healthz')).status).toBe(200);
    await store.outbox.enqueue({
      path: '/api/subscriptions',
      fields: [['email', 'queued@example.org']],
      forwarded: {},
      idempotencyKey: '00000000-0000-4000-8000-000000000000',
    });
    await until('/healthz reports the queued signup', async () => {
      return (await request(app).get('/healthz')).body.outbox === 1;
    });
    await store.close();
  });

  it('/readyz asks the store at most once a second, and answers 503 once it fails', async () => {
    const { config, store, calls } = countedStore();
    const app = createApp(config, { store });
    const { statuses, seconds } = await flood(app, '/readyz', 200);
    expect(statuses.every((status) => status === 200)).toBe(true);
    expect(calls.ping).toBeLessThanOrEqual(Math.ceil(seconds) + 1);
    // Gone: a probe a second later, at the latest, says so.
    await store.close();
    await until(
      '/readyz answers 503',
      async () => (await request(app).get('/readyz')).status === 503,
    );
  });
});
