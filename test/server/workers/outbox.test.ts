// Signups are never lost while BACKEND_URL is down: the outbox keeps them in SQLite and the
// worker delivers them, exactly once, to a real multer backend on 127.0.0.1.
import http from 'node:http';
import request from 'supertest';
import type { createApp } from '../../../server/app';
import { closedPort } from '../../support/backend';
import { testConfig } from '../../support/config';
import { listen } from '../../support/http';
import { outboxSites } from '../../support/outbox-site';
import { queuedSignup } from '../../support/stores';
import { until } from '../../support/wait';

const { clock, storeFor, site, backendOn } = outboxSites();

/** The site in front of a backend on `backendPort`, by default one that refuses connections. */
async function setup(backendPort?: number) {
  const port = backendPort ?? (await closedPort());
  return { ...site(port), port };
}

const signup = (app: ReturnType<typeof createApp>, email = 'zoë@example.org') =>
  request(app)
    .post('/api/subscriptions')
    .field('email', email)
    .field('description', 'line one\r\nline two — ü');

/** One round of the worker 10 s on, past any first retry, and then stops it. */
async function deliverOnce(delivery: { flush(): Promise<unknown>; stop(): Promise<unknown> }) {
  clock.now += 10_000;
  await delivery.flush();
  await delivery.stop();
}

describe('outbox', () => {
  it('queues a signup durably with 202 when the backend is unreachable, and shows the depth', async () => {
    const { app, store } = await setup();
    const res = await signup(app);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ queued: true });
    expect((await store.outbox.all()).map((item) => item.request)).toEqual([
      {
        path: '/api/subscriptions',
        fields: [
          ['email', 'zoë@example.org'],
          ['description', 'line one\r\nline two — ü'],
        ],
        forwarded: {
          'x-forwarded-for': '127.0.0.1',
          'x-forwarded-proto': 'http',
          'x-forwarded-host': expect.stringMatching(/^127\.0\.0\.1:\d+$/),
        },
        idempotencyKey: expect.stringMatching(/^[0-9a-f-]{36}$/),
      },
    ]);
    // /healthz reports what it read in the background (server/health.ts), a moment later.
    let health: unknown;
    await until('/healthz reports the queued signup', async () => {
      health = (await request(app).get('/healthz')).body;
      return (health as { outbox?: unknown }).outbox === 1;
    });
    expect(health).toEqual({ status: 'ok', outbox: 1, version: expect.any(String) });
  });

  it('queues on a backend 5xx and on a timeout', async () => {
    const { app, store, port } = await setup();
    const backend = await backendOn(port);
    backend.respondWith((req, res) => res.status(503).json({ error: 'maintenance' }));
    expect((await signup(app, 'a@b.co')).status).toBe(202);
    backend.respondWith(() => new Promise(() => {}));
    expect((await signup(app, 'c@d.co')).status).toBe(202);
    expect(await store.outbox.depth()).toBe(2);
  });

  it.each([408, 429])('queues on a backend %i: "not now", not "no"', async (status) => {
    const { app, store, port } = await setup();
    const backend = await backendOn(port);
    backend.respondWith((req, res) => res.status(status).json({ error: 'later' }));
    const res = await signup(app);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ queued: true });
    expect(await store.outbox.depth()).toBe(1);
  });

  it('passes a backend 4xx through unchanged and never queues it', async () => {
    const { app, store, port } = await setup();
    const backend = await backendOn(port);
    backend.respondWith((req, res) => res.status(409).json({ error: 'Already subscribed' }));
    const res = await signup(app);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: 'Already subscribed' });
    expect(await store.outbox.depth()).toBe(0);
  });

  it('never queues or forwards an invalid submission', async () => {
    const { app, store, port } = await setup();
    const backend = await backendOn(port);
    const res = await request(app).post('/api/subscriptions').field('email', 'not-an-email');
    expect(res.status).toBe(400);
    expect(backend.received).toHaveLength(0);
    expect(await store.outbox.depth()).toBe(0);
  });

  it('delivers when the backend comes back: the same fields, to the same path, exactly once', async () => {
    const { app, store, port, worker } = await setup();
    await signup(app);
    await request(app)
      .post('/api/subscriptions?source=landing')
      .type('form')
      .send('email=a%40b.co');
    const backend = await backendOn(port);
    const delivery = worker();
    clock.now += 10_000;
    await Promise.all([delivery.flush(), delivery.flush(), delivery.flush()]);
    await delivery.flush();
    await delivery.stop();
    expect(backend.received.map((r) => [r.url, r.fields])).toEqual([
      ['/api/subscriptions', { email: 'zoë@example.org', description: 'line one\r\nline two — ü' }],
      ['/api/subscriptions?source=landing', { email: 'a@b.co', description: '' }],
    ]);
    expect(await store.outbox.depth()).toBe(0);
  });

  it('retries after a 5xx with growing delays, then delivers', async () => {
    const { app, store, port, worker } = await setup();
    await signup(app);
    const backend = await backendOn(port);
    let calls = 0;
    backend.respondWith((req, res) => res.status(++calls < 3 ? 500 : 201).json({}));
    const delivery = worker();
    const delays: number[] = [];
    for (let round = 0; round < 3; round++) {
      clock.now = (await store.outbox.nextDueAt())!;
      await delivery.flush();
      const next = await store.outbox.nextDueAt();
      if (next) delays.push(next - clock.now);
    }
    await delivery.stop();
    expect(calls).toBe(3);
    expect(await store.outbox.depth()).toBe(0);
    expect(delays).toHaveLength(2);
    expect(delays[1]).toBeGreaterThan(delays[0]);
  });

  it("keeps an item the backend's rate limiter turns away (429, then 408), and delivers it once let in", async () => {
    const { app, store, port, worker } = await setup();
    await signup(app);
    const backend = await backendOn(port);
    const answers = [429, 408, 201];
    backend.respondWith((req, res) => res.status(answers[backend.received.length - 1]).json({}));
    const delivery = worker();
    for (let round = 0; round < 3; round++) {
      clock.now = (await store.outbox.nextDueAt())!;
      await delivery.flush();
      expect([round, await store.outbox.depth()]).toEqual([round, round < 2 ? 1 : 0]);
    }
    await delivery.stop();
    expect(backend.received).toHaveLength(3);
  });

  it('drops an item the backend refuses with a 4xx instead of retrying it forever', async () => {
    const { app, store, port, worker } = await setup();
    await signup(app);
    const backend = await backendOn(port);
    backend.respondWith((req, res) => res.status(422).json({ error: 'nope' }));
    await deliverOnce(worker());
    expect(backend.received).toHaveLength(1);
    expect(await store.outbox.depth()).toBe(0);
  });

  it('delivers after a restart of the site', async () => {
    const first = await setup();
    await signup(first.app);
    void first.store.close();

    const store = storeFor(first.config);
    const backend = await backendOn(first.port);
    await deliverOnce(first.worker(store.outbox));
    expect(backend.received).toHaveLength(1);
    expect(await store.outbox.depth()).toBe(0);
  });

  it('finishes a signup whose visitor disconnected, and queues it if the backend then fails', async () => {
    const { app, store, port } = await setup();
    const backend = await backendOn(port);
    backend.respondWith(() => new Promise(() => {})); // takes longer than UPSTREAM_TIMEOUT_MS (500)
    const { server, port: sitePort } = await listen(app);
    const body = 'email=gone%40example.org';
    const client = http.request({
      host: '127.0.0.1',
      port: sitePort,
      path: '/api/subscriptions',
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'content-length': body.length,
      },
    });
    client.on('error', () => {});
    client.end(body);
    await until('the backend has the signup', () => backend.received.length === 1);
    client.destroy(); // the visitor closes the tab while the backend is still thinking
    await until('the timed-out signup is queued', async () => (await store.outbox.depth()) === 1);
    server.close();
    expect(backend.received).toHaveLength(1);
    expect((await store.outbox.all()).map((i) => i.request.fields)).toEqual([
      [
        ['email', 'gone@example.org'],
        ['description', ''],
      ],
    ]);
  });

  it('backs off exponentially, capped at about five minutes', async () => {
    const store = storeFor(testConfig());
    const random = jest.spyOn(Math, 'random').mockReturnValue(0.5); // the middle of the ±20 % jitter
    try {
      await store.outbox.enqueue(queuedSignup('a@b.co'));
      const failOnce = async () => {
        await store.outbox.failed((await store.outbox.all())[0], 'status 503');
        return (await store.outbox.nextDueAt())! - clock.now;
      };
      const delays: number[] = [];
      for (let i = 0; i < 12; i++) delays.push(await failOnce());
      expect(delays.slice(0, 4)).toEqual([2000, 4000, 8000, 16000]);
      expect(delays.at(-1)).toBe(5 * 60_000);
      random.mockReturnValue(1);
      // The jitter never takes a delay past the cap.
      expect(await failOnce()).toBe(5 * 60_000);
    } finally {
      random.mockRestore();
    }
  });
});
