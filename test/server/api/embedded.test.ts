// The embedded waitlist API (no BACKEND_URL): real SQLite files in temp folders.
import http from 'node:http';
import request from 'supertest';
import { createApp } from '../../../server/app';
import { openSqliteStore } from '../../../server/store';
import { testConfig } from '../../support/config';
import { listen, postSignup } from '../../support/http';

function freshApp() {
  const config = testConfig();
  const store = openSqliteStore(config);
  return { app: createApp(config, { store }), store, config };
}

describe('POST /api/subscriptions (embedded store)', () => {
  it.each([
    [
      'multipart',
      (r: request.Test) =>
        r.field('email', 'zoë@example.org').field('description', 'github.com/zoe'),
    ],
    [
      'urlencoded',
      (r: request.Test) =>
        r.type('form').send('email=zo%C3%AB%40example.org&description=github.com%2Fzoe'),
    ],
    [
      'JSON',
      (r: request.Test) => r.send({ email: 'zoë@example.org', description: 'github.com/zoe' }),
    ],
  ])('accepts %s and answers 201 {"email"} after storing the row', async (_kind, send) => {
    const { app, store } = freshApp();
    const res = await send(request(app).post('/api/subscriptions'));
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ email: 'zoë@example.org' });
    expect(await store.signups.list()).toEqual([
      {
        email: 'zoë@example.org',
        description: 'github.com/zoe',
        created_at: expect.any(String),
        invited_at: null,
        activated_at: null,
        confirmed_at: expect.any(String),
        state: 'waitlisted',
        language: 'en',
        // Where it came from: nothing was said.
        utm_source: null,
        utm_medium: null,
        utm_campaign: null,
        referrer: null,
      },
    ]);
  });

  it('stores an address once, whatever its case or surrounding spaces, and answers the same', async () => {
    const { app, store } = freshApp();
    const answers = [];
    for (const email of [
      'Zoe@Example.org',
      'zoe@example.org',
      '  ZOE@EXAMPLE.ORG  ',
      'zoe@example.org',
    ]) {
      const res = await request(app)
        .post('/api/subscriptions')
        .field('email', email)
        .field('description', 'x');
      answers.push([res.status, Object.keys(res.body)]);
    }
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    expect(answers[0]).toEqual([201, ['email']]);
    expect(await store.signups.count()).toBe(1);
    expect((await store.signups.list())[0].email).toBe('Zoe@Example.org');
  });

  it('trims the address before storing it', async () => {
    const { app, store } = freshApp();
    const res = await request(app).post('/api/subscriptions').send({ email: '  a@b.co \t' });
    expect(res.body).toEqual({ email: 'a@b.co' });
    expect((await store.signups.list())[0]).toMatchObject({ email: 'a@b.co', description: '' });
  });

  it.each([
    ['no email', { description: 'x' }, 'Email address is required', { code: 'email-required' }],
    [
      'an invalid email',
      { email: 'not an email' },
      'Email address is invalid',
      { code: 'email-mismatch' },
    ],
    [
      'an email with CRLF',
      { email: 'a@b.co\r\nBcc: x@y.z' },
      'Email address is invalid',
      { code: 'email-mismatch' },
    ],
    [
      'an email over 254 characters',
      { email: `${'a'.repeat(250)}@b.co` },
      'Email address is longer than 254 characters',
      { code: 'email-too-long', max: 254 },
    ],
    [
      'a description over 2000 characters',
      { email: 'a@b.co', description: 'x'.repeat(2001) },
      'Description is longer than 2000 characters',
      { code: 'description-too-long', max: 2000 },
    ],
    [
      'an email that is not text',
      { email: ['a@b.co', 'c@d.co'] },
      'Email must be a single text value',
      { code: 'email-not-one' },
    ],
  ])('refuses %s with 400 and stores nothing', async (_case, body, error, problem) => {
    const { app, store } = freshApp();
    const res = await request(app).post('/api/subscriptions').send(body);
    expect(res.status).toBe(400);
    // The field travels with the message, so a form shows it under that field; the problem as
    // data, so a page says it in its own language.
    const field = error.startsWith('Email') ? 'email' : 'description';
    expect(res.body).toEqual({ error, field, ...problem });
    expect(await store.signups.count()).toBe(0);
  });

  it('accepts a description of exactly 2000 characters', async () => {
    const { app, store } = freshApp();
    const res = await request(app)
      .post('/api/subscriptions')
      .send({ email: 'a@b.co', description: 'é'.repeat(2000) });
    expect(res.status).toBe(201);
    expect((await store.signups.list())[0].description).toHaveLength(2000);
  });

  it('refuses malformed JSON and unknown content types with 4xx JSON', async () => {
    const { app, store } = freshApp();
    const bad = await request(app)
      .post('/api/subscriptions')
      .set('Content-Type', 'application/json')
      .send('{"email":');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'Malformed JSON' });
    const xml = await request(app)
      .post('/api/subscriptions')
      .set('Content-Type', 'application/xml')
      .send('<email/>');
    expect(xml.status).toBe(415);
    expect(await store.signups.count()).toBe(0);
  });

  it('keeps signups across a restart', async () => {
    const config = testConfig();
    const first = openSqliteStore(config);
    await request(createApp(config, { store: first }))
      .post('/api/subscriptions')
      .send({ email: 'a@b.co' });
    void first.close();
    const second = openSqliteStore(config);
    expect((await second.signups.list()).map((r) => r.email)).toEqual(['a@b.co']);
    await request(createApp(config, { store: second }))
      .post('/api/subscriptions')
      .send({ email: 'A@B.CO' });
    expect(await second.signups.count()).toBe(1);
    void second.close();
  });

  it('takes hundreds of parallel signups over real connections without losing or duplicating any', async () => {
    const { app, store } = freshApp();
    const { server, port } = await listen(app);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 50 });
    const post = (email: string) =>
      postSignup(port, JSON.stringify({ email, description: 'load' }), 'application/json', agent);
    const unique = Array.from({ length: 300 }, (_, i) => `user${i}@example.org`);
    const repeats = unique.slice(0, 100).map((email) => `  ${email.toUpperCase()} `);
    const statuses = await Promise.all([...unique, ...repeats].map(post));
    agent.destroy();
    server.close();
    expect(statuses.filter((s) => s === 201)).toHaveLength(400);
    expect(await store.signups.count()).toBe(300);
    expect(new Set((await store.signups.list()).map((r) => r.email.toLowerCase())).size).toBe(300);
  });

  it('answers other paths with 404 JSON and other methods with 405 JSON', async () => {
    const { app } = freshApp();
    const missing = await request(app).post('/api/nope').send({});
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'Not found' });
    const wrongMethod = await request(app).get('/api/subscriptions');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.body).toEqual({ error: 'Method not allowed' });
  });
});

describe('POST /api/subscription-activation (embedded store)', () => {
  it('activates with a key issued for that address, and answers a repeat the same way', async () => {
    const { app, store } = freshApp();
    await store.signups.add({ email: 'Zoe@Example.org', description: '' });
    const key = await store.subscriptions.issueKey('zoe@example.org');
    for (let i = 0; i < 2; i++) {
      const res = await request(app)
        .post('/api/subscription-activation')
        .field('key', key)
        .field('email', 'zoe@example.org');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ email: 'Zoe@Example.org', isActive: true, spaceLimit: 1024 ** 3 });
    }
    expect((await store.signups.list())[0].activated_at).toEqual(expect.any(String));
  });

  it.each([
    ['a wrong key', (key: string) => ({ key: `${key}x`, email: 'a@b.co' })],
    ['the key of another address', () => ({ key: 'OTHER', email: 'a@b.co' })],
    ['the right key for another address', (key: string) => ({ key, email: 'c@d.co' })],
  ])('refuses %s with 404 "Invalid activation key"', async (_case, body) => {
    const { app, store } = freshApp();
    await store.signups.add({ email: 'a@b.co', description: '' });
    await store.signups.add({ email: 'c@d.co', description: '' });
    const key = await store.subscriptions.issueKey('a@b.co');
    const res = await request(app).post('/api/subscription-activation').send(body(key));
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Invalid activation key' });
    expect((await store.signups.list()).every((r) => r.activated_at === null)).toBe(true);
  });
});
