// Form submissions are limited per client IP; pages and assets never are.
import request from 'supertest';
import { createApp } from '../../../server/app';
import { loadPageAssets } from '../../../server/pages/static-files';
import { openSqliteStore } from '../../../server/store';
import { startBackend } from '../../support/backend';
import { testConfig } from '../../support/config';
import { statusesInTurn } from '../../support/http';
import { stopClockInOneRateWindow } from '../../support/rate-window';

function limitedApp(limit: string) {
  const config = testConfig({ SIGNUP_RATE_LIMIT: limit });
  const store = openSqliteStore(config);
  return { app: createApp(config, { store }), store };
}

const signup = (app: ReturnType<typeof createApp>, i: number, ip = '203.0.113.1') =>
  request(app)
    .post('/api/subscriptions')
    .set('X-Forwarded-For', ip)
    .send({ email: `user${i}@example.org` });

describe('rate limit on form submissions', () => {
  // A test's requests in one of the counters' fixed windows (rate-window.ts).
  beforeEach(stopClockInOneRateWindow);
  afterEach(() => {
    jest.useRealTimers();
  });

  it('answers 429 JSON with Retry-After once an IP is over SIGNUP_RATE_LIMIT per minute', async () => {
    const { app, store } = limitedApp('3');
    for (let i = 0; i < 3; i++) expect((await signup(app, i)).status).toBe(201);
    const over = await signup(app, 99);
    expect(over.status).toBe(429);
    expect(over.body).toEqual({ error: expect.stringMatching(/too many/i) });
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(over.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(await store.signups.count()).toBe(3);
  });

  it('shares one budget between the API signup and the native form', async () => {
    const { app } = limitedApp('2');
    await signup(app, 1);
    await signup(app, 2);
    const nativeForm = () => request(app).post('/?index').set('X-Forwarded-For', '203.0.113.1');
    const native = await nativeForm().field('email', 'c@d.co').field('description', 'x');
    expect(native.status).toBe(429);
    expect(native.body).toEqual({ error: expect.any(String) });
    const browser = await nativeForm().set('Accept', 'text/html').field('email', 'c@d.co');
    expect(browser.status).toBe(429);
    expect(browser.headers['content-type']).toMatch(/^text\/html/);
    expect(browser.headers['retry-after']).toBeDefined();
    expect(browser.text).toContain('Too many submissions');
  });

  it('does not count activations answered by the embedded store: their caller is the OrgNote backend, activating for everyone', async () => {
    const { app, store } = limitedApp('2');
    await store.signups.add({ email: 'a@b.co', description: '' });
    const key = await store.subscriptions.issueKey('a@b.co');
    const activate = () =>
      request(app)
        .post('/api/subscription-activation')
        .set('X-Forwarded-For', '203.0.113.1')
        .send({ email: 'a@b.co', key });
    expect(await statusesInTurn(12, activate)).toEqual(Array(12).fill(200));
    expect((await signup(app, 1)).status).toBe(201); // the signup budget is untouched
  });

  it('counts activations on their way to a backend, which it protects', async () => {
    const backend = await startBackend();
    try {
      const config = testConfig({ SIGNUP_RATE_LIMIT: '2', BACKEND_URL: backend.url });
      const app = createApp(config, { store: openSqliteStore(config) });
      const activate = () =>
        request(app)
          .post('/api/subscription-activation')
          .set('X-Forwarded-For', '203.0.113.1')
          .field('email', 'a@b.co')
          .field('key', 'k');
      expect(await statusesInTurn(3, activate)).toEqual([201, 201, 429]);
    } finally {
      await backend.close();
    }
  });

  it('counts each client behind a trusted proxy on its own', async () => {
    const { app } = limitedApp('1');
    expect((await signup(app, 1, '198.51.100.1')).status).toBe(201);
    expect((await signup(app, 2, '198.51.100.2')).status).toBe(201);
    expect((await signup(app, 3, '198.51.100.1')).status).toBe(429);
  });

  it('never limits pages, assets or the health probe', async () => {
    const { app } = limitedApp('1');
    await signup(app, 1);
    expect((await signup(app, 2)).status).toBe(429);
    for (const path of [
      '/',
      '/activate',
      '/?email=a%40b.co',
      loadPageAssets().scripts[0],
      '/robots.txt',
      '/healthz',
    ]) {
      for (let i = 0; i < 3; i++) {
        const res = await request(app).get(path).set('X-Forwarded-For', '203.0.113.1');
        expect({ path, status: res.status }).toEqual({ path, status: 200 });
      }
    }
  });

  it('is off with SIGNUP_RATE_LIMIT=0', async () => {
    const { app, store } = limitedApp('0');
    for (let i = 0; i < 30; i++) expect((await signup(app, i)).status).toBe(201);
    expect(await store.signups.count()).toBe(30);
  });
});
