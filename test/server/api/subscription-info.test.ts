// GET /api/subscription-info/{provider}/{externalId}: what the OrgNote backend asks about an
// account, behind SUBSCRIPTION_API_TOKEN. Accounts are bound the way they are in production, by an
// activation through the API; real SQLite files in temp folders, a real backend for proxy mode.
import request from 'supertest';
import { createApp } from '../../../server/app';
import type { Logger } from '../../../server/logger';
import { openSqliteStore, type Store } from '../../../server/store';
import { startBackend } from '../../support/backend';
import { capturingLogger, testConfig } from '../../support/config';
import { listen, rawRequest, statusesInTurn } from '../../support/http';
import { until } from '../../support/wait';
import { stopClockInOneRateWindow } from '../../support/rate-window';

const TOKEN = 'sub-api-token-5d1c2e8f0a9b';
const INFO = '/api/subscription-info';
const EMAIL = 'Zoe.Info@Example.org';
const ACCOUNT = { provider: 'github', id: 'zoe-4242' };
const GIB = 1024 ** 3;

type App = ReturnType<typeof createApp>;

function site(env: Record<string, string> = {}, logger?: Logger) {
  const config = testConfig({ SUBSCRIPTION_API_TOKEN: TOKEN, ...env });
  const store = openSqliteStore(config);
  return { app: createApp(config, { store, logger }), store };
}

/**
 * Puts `email` on the waitlist, gives it a key and activates it bound to the account; returns the
 * key.
 */
async function bindAccount(
  app: App,
  store: Store,
  email: string,
  provider: string,
  id: string,
  extra: Record<string, string> = {},
) {
  await store.signups.add({ email, description: '' });
  const key = await store.subscriptions.issueKey(email);
  const res = await request(app)
    .post('/api/subscription-activation')
    .field('key', key)
    .field('email', email)
    .field('externalProvider', provider)
    .field('externalId', id)
    .field(extra);
  expect(res.status).toBe(200);
  return key;
}

/** A request with the path sent exactly as written (supertest would normalise some spellings). */
async function raw(app: App, path: string, headers: Record<string, string> = {}, method = 'GET') {
  const { server, port } = await listen(app);
  try {
    const res = await rawRequest(port, path, headers, method);
    const text = res.body.toString('utf8');
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  } finally {
    server.close();
  }
}

const withToken = { Authorization: `Token ${TOKEN}` };
const info = (provider: string, id: string) => `${INFO}/${provider}/${id}`;

/** Asks, with the token, a site where EMAIL is bound to github:zoe-4242. */
async function askBoundSite(path: string) {
  const { app, store } = site();
  await bindAccount(app, store, EMAIL, 'github', 'zoe-4242');
  return raw(app, path, withToken);
}

describe('GET /api/subscription-info: the token × the account', () => {
  const AUTHORIZATIONS: [string, string | undefined, boolean][] = [
    ['the right token', `Token ${TOKEN}`, true],
    ['the right token, scheme in lower case (RFC 9110 §11.1)', `token ${TOKEN}`, true],
    ['the right token with extra spaces', `Token   ${TOKEN}  `, true],
    ['no Authorization header', undefined, false],
    [
      'a wrong token of the same length',
      `Token ${TOKEN.slice(0, -1)}${TOKEN.endsWith('x') ? 'y' : 'x'}`,
      false,
    ],
    ['the right token with one more character', `Token ${TOKEN}x`, false],
    ['a prefix of the right token', `Token ${TOKEN.slice(0, 16)}`, false],
    ['the right token as Bearer', `Bearer ${TOKEN}`, false],
    [
      'the right token as Basic credentials',
      `Basic ${Buffer.from(`api:${TOKEN}`).toString('base64')}`,
      false,
    ],
    ['the right token without a scheme', TOKEN, false],
    ['the scheme without a token', 'Token ', false],
    ['two tokens', `Token ${TOKEN} ${TOKEN}`, false],
  ];
  const MATRIX = AUTHORIZATIONS.flatMap(([name, header, right]) => [
    [name, 'a bound account', right ? 200 : 401, header] as const,
    [name, 'an unknown account', right ? 404 : 401, header] as const,
  ]);

  it.each(MATRIX)('%s, asking about %s: %i', async (_name, asking, status, header) => {
    const { app, store } = site();
    await bindAccount(app, store, EMAIL, ACCOUNT.provider, ACCOUNT.id);
    let req = request(app).get(
      asking === 'a bound account'
        ? info(ACCOUNT.provider, ACCOUNT.id)
        : info('github', 'nobody-1'),
    );
    if (header !== undefined) req = req.set('Authorization', header);
    const res = await req;
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    if (status === 200) {
      expect(res.body).toEqual({ email: EMAIL, isActive: true, spaceLimit: GIB });
      expect(res.headers['cache-control']).toBe('no-store');
    } else if (status === 404) {
      expect(res.body).toEqual({ error: 'No subscription for this account' });
    } else {
      // The same 401 whether the account exists or not: no way to learn about accounts without the
      // token.
      expect(res.body).toEqual({ error: 'Missing or invalid token' });
      expect(res.headers['www-authenticate']).toBe('Token');
      expect(res.text).not.toContain(EMAIL);
    }
  });

  it('answers an account bound, then its subscription bound nowhere else: only the bound account gets 200', async () => {
    const { app, store } = site();
    await bindAccount(app, store, EMAIL, 'github', 'zoe-4242');
    await bindAccount(app, store, 'bob@example.org', 'gitlab', 'zoe-4242');
    const zoe = await request(app).get(info('github', 'zoe-4242')).set(withToken);
    const bob = await request(app).get(info('gitlab', 'zoe-4242')).set(withToken);
    const nobody = await request(app).get(info('google', 'zoe-4242')).set(withToken);
    expect([zoe.body.email, bob.body.email, nobody.status]).toEqual([
      EMAIL,
      'bob@example.org',
      404,
    ]);
  });

  it('does not know an account whose subscription was activated without one', async () => {
    const { app, store } = site();
    await store.signups.add({ email: EMAIL, description: '' });
    const key = await store.subscriptions.issueKey(EMAIL);
    expect(
      (await request(app).post('/api/subscription-activation').send({ key, email: EMAIL })).status,
    ).toBe(200);
    expect((await request(app).get(info('github', 'zoe-4242')).set(withToken)).status).toBe(404);
  });

  it('answers HEAD like GET, without a body', async () => {
    const { app, store } = site();
    await bindAccount(app, store, EMAIL, ACCOUNT.provider, ACCOUNT.id);
    const path = info(ACCOUNT.provider, ACCOUNT.id);
    const get = await raw(app, path, withToken);
    const head = await raw(app, path, withToken, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body).toBeUndefined();
    for (const name of ['content-type', 'content-length', 'cache-control'])
      expect({ name, value: head.headers[name] }).toEqual({ name, value: get.headers[name] });
    expect((await raw(app, info('github', 'nobody-1'), withToken, 'HEAD')).status).toBe(404);
    const unauthorised = await raw(app, path, {}, 'HEAD');
    expect([unauthorised.status, unauthorised.headers['www-authenticate']]).toEqual([401, 'Token']);
  });

  it.each(['POST', 'PUT', 'PATCH', 'DELETE'])(
    'answers %s with 405 JSON and Allow: GET, HEAD, and changes nothing',
    async (method) => {
      const { app, store } = site();
      await bindAccount(app, store, EMAIL, ACCOUNT.provider, ACCOUNT.id);
      for (const headers of [withToken, {}]) {
        const res = await raw(app, info(ACCOUNT.provider, ACCOUNT.id), headers, method);
        expect(res.status).toBe(405);
        expect(res.headers.allow).toBe('GET, HEAD');
        expect(res.body).toEqual({ error: 'Method not allowed' });
      }
      expect(
        (await request(app).get(info(ACCOUNT.provider, ACCOUNT.id)).set(withToken)).status,
      ).toBe(200);
    },
  );

  it('reports SPACE_LIMIT_BYTES as spaceLimit, the same as the activation did', async () => {
    const { app, store } = site({ SPACE_LIMIT_BYTES: '5368709120' });
    await store.signups.add({ email: EMAIL, description: '' });
    const activation = await request(app)
      .post('/api/subscription-activation')
      .send({
        key: await store.subscriptions.issueKey(EMAIL),
        email: EMAIL,
        externalProvider: 'github',
        externalId: 'zoe-4242',
      });
    const res = await request(app).get(info('github', 'zoe-4242')).set(withToken);
    expect(activation.body.spaceLimit).toBe(5 * GIB);
    expect(res.body).toEqual({ email: EMAIL, isActive: true, spaceLimit: 5 * GIB });
  });
});

describe('GET /api/subscription-info without SUBSCRIPTION_API_TOKEN', () => {
  it.each([
    ['GET with the token another site uses', 'GET', withToken],
    ['GET without a token', 'GET', {}],
    ['GET with a Bearer token', 'GET', { Authorization: `Bearer ${TOKEN}` }],
    ['HEAD', 'HEAD', withToken],
    ['POST', 'POST', withToken],
    ['DELETE', 'DELETE', {}],
  ])(
    'answers %s with 404, never 401 or 405, even for a bound account',
    async (_case, method, headers) => {
      const { app, store } = site({ SUBSCRIPTION_API_TOKEN: '' });
      await bindAccount(app, store, EMAIL, ACCOUNT.provider, ACCOUNT.id);
      const res = await raw(app, info(ACCOUNT.provider, ACCOUNT.id), headers, method);
      expect(res.status).toBe(404);
      expect(res.headers['www-authenticate']).toBeUndefined();
      expect(res.headers.allow).toBeUndefined();
      if (method !== 'HEAD') expect(res.body).toEqual({ error: 'Not found' });
    },
  );
});

describe('GET /api/subscription-info: the path parameters', () => {
  it.each([
    [
      'an id with spaces and accents, percent-encoded',
      'github',
      'Zoë Müller',
      'github',
      'Zo%C3%AB%20M%C3%BCller',
    ],
    ['an id with + and @, percent-encoded', 'github', 'a+b@c', 'github', 'a%2Bb%40c'],
    [
      'an id with + and @, as they are (+ is no space in a path)',
      'github',
      'a+b@c',
      'github',
      'a+b@c',
    ],
    ['a percent-encoded provider', 'github', 'zoe-4242', '%67%69%74%68%75%62', 'zoe-4242'],
    ['the provider in other letter case', 'github', 'zoe-4242', 'GitHub', 'zoe-4242'],
    ['the provider bound in other letter case', 'GitHub', 'zoe-4242', 'GITHUB', 'zoe-4242'],
    [
      'the provider with dots, dashes and underscores',
      'my-idp.example_1',
      '7',
      'My-IdP.Example_1',
      '7',
    ],
  ])('finds %s', async (_case, boundProvider, boundId, provider, id) => {
    const { app, store } = site();
    await bindAccount(app, store, EMAIL, boundProvider, boundId);
    const res = await raw(app, info(provider, id), withToken);
    expect({ status: res.status, body: res.body }).toEqual({
      status: 200,
      body: { email: EMAIL, isActive: true, spaceLimit: GIB },
    });
  });

  it.each([
    ['the id in other letter case', 'ZOE-4242'],
    ['the id with a trailing space', 'zoe-4242%20'],
    ['a prefix of the id', 'zoe-424'],
  ])('does not find %s: ids compare exactly', async (_case, id) => {
    const res = await askBoundSite(info('github', id));
    expect(res.status).toBe(404);
  });

  it.each([
    ['no id', `${INFO}/github`],
    ['a third segment', `${INFO}/github/zoe-4242/extra`],
    ['nothing after the route', `${INFO}/`],
  ])('answers a path with %s with 404 and names no subscription', async (_case, path) => {
    const res = await askBoundSite(path);
    expect(res.status).toBe(404);
    expect(JSON.stringify(res.body)).not.toContain(EMAIL);
  });

  it.each([
    ['a NUL', 'zoe%004242'],
    ['a line break', 'zoe%0A4242'],
  ])('refuses an id with %s with a 4xx, on every engine alike', async (_case, id) => {
    const res = await askBoundSite(info('github', id));
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.body).toEqual({ error: expect.any(String) });
  });

  // The id is decoded exactly once: decoding again (as the guard of relayed paths does) would turn
  // an id with '%41' in it into the id 'A' and answer about another account.
  it('decodes the id once: an id containing "%41" is not confused with the id "A"', async () => {
    const { app, store } = site();
    await bindAccount(app, store, EMAIL, 'github', 'A');
    await bindAccount(app, store, 'bob@example.org', 'github', '%41');
    const res = await raw(app, info('github', encodeURIComponent('%41')), withToken);
    expect({ status: res.status, body: res.body }).toEqual({
      status: 200,
      body: { email: 'bob@example.org', isActive: true, spaceLimit: GIB },
    });
  });

  // Activation accepts any id without control characters, so every such id must be reachable here
  // once encoded, '/' and '%' included.
  it.each([
    ['a slash', 'team/42'],
    ['a percent sign', '100%'],
    ['a backslash', 'dom\\user'],
    ['a semicolon', 'a;b'],
  ])('finds an account whose id, accepted by the activation, contains %s', async (_case, id) => {
    const { app, store } = site();
    await bindAccount(app, store, EMAIL, 'github', id);
    const res = await raw(app, info('github', encodeURIComponent(id)), withToken);
    expect({ status: res.status, body: res.body }).toEqual({
      status: 200,
      body: { email: EMAIL, isActive: true, spaceLimit: GIB },
    });
  });
});

describe('GET /api/subscription-info with BACKEND_URL', () => {
  const BACKEND_TOKEN = 'backend-held-token-0123456789';

  it('relays the call with its Authorization header, and the backend answer comes back unchanged', async () => {
    const backend = await startBackend();
    try {
      // The test backend answers every path 201 {ok, path} by default; answer this contract
      // instead.
      backend.respondWith((req, res) => {
        if (req.headers.authorization !== `Token ${BACKEND_TOKEN}`)
          return res
            .status(401)
            .set('WWW-Authenticate', 'Token')
            .json({ error: 'backend says no' });
        res
          .status(200)
          .set('Cache-Control', 'no-store')
          .json({ email: 'from-backend@example.org', isActive: true, spaceLimit: 7 });
      });
      // The site's own token is set too: in proxy mode the backend, not the site, decides.
      const { app, store } = site({ BACKEND_URL: backend.url });
      const path = `${INFO}/GitHub/Zo%C3%AB%20M`;

      const res = await raw(app, path, { Authorization: `Token ${BACKEND_TOKEN}` });
      expect({ status: res.status, body: res.body }).toEqual({
        status: 200,
        body: { email: 'from-backend@example.org', isActive: true, spaceLimit: 7 },
      });
      expect(res.headers['cache-control']).toBe('no-store');
      expect(backend.received).toHaveLength(1);
      expect(backend.received[0]).toMatchObject({ method: 'GET', url: path });
      expect(backend.received[0].headers.authorization).toBe(`Token ${BACKEND_TOKEN}`);

      const refused = await raw(app, path, withToken);
      expect({ status: refused.status, body: refused.body }).toEqual({
        status: 401,
        body: { error: 'backend says no' },
      });
      expect(refused.headers['www-authenticate']).toBe('Token');
      expect(backend.received[1].headers.authorization).toBe(`Token ${TOKEN}`);

      const post = await raw(app, path, withToken, 'POST');
      expect(post.status).toBe(401); // relayed too: no 405 of the site's own
      expect(backend.received.map((r) => r.method)).toEqual(['GET', 'GET', 'POST']);
      expect(await store.signups.count()).toBe(0);
    } finally {
      await backend.close();
    }
  });

  it('relays even without a SUBSCRIPTION_API_TOKEN of its own', async () => {
    const backend = await startBackend();
    try {
      backend.respondWith((_req, res) =>
        res.status(404).json({ error: 'unknown account (backend)' }),
      );
      const { app } = site({ BACKEND_URL: backend.url, SUBSCRIPTION_API_TOKEN: '' });
      const res = await request(app)
        .get(info('github', '1'))
        .set('Authorization', `Token ${BACKEND_TOKEN}`);
      expect({ status: res.status, body: res.body }).toEqual({
        status: 404,
        body: { error: 'unknown account (backend)' },
      });
      expect(backend.received.map((r) => [r.url, r.headers.authorization])).toEqual([
        [info('github', '1'), `Token ${BACKEND_TOKEN}`],
      ]);
    } finally {
      await backend.close();
    }
  });
});

describe('GET /api/subscription-info and the rate limit on form submissions', () => {
  // Its requests in one of the counters' fixed windows (rate-window.ts).
  beforeEach(stopClockInOneRateWindow);
  afterEach(() => jest.useRealTimers());
  const IP = '203.0.113.9';

  it('is never charged to the budget, while signups are', async () => {
    const { app, store } = site({ SIGNUP_RATE_LIMIT: '2' });
    await store.signups.add({ email: EMAIL, description: '' });
    const key = await store.subscriptions.issueKey(EMAIL);
    const get = (path: string, headers: Record<string, string> = withToken) =>
      request(app).get(path).set('X-Forwarded-For', IP).set(headers);

    const asked = [];
    for (let i = 0; i < 5; i++) asked.push((await get(info('github', `nobody-${i}`))).status);
    asked.push(
      (await request(app).head(info('github', 'x')).set('X-Forwarded-For', IP).set(withToken))
        .status,
    );
    asked.push(
      (await get(info('github', 'x'), { Authorization: 'Token wrong-token-wrong-token' })).status,
    );
    expect(asked).toEqual([404, 404, 404, 404, 404, 404, 401]);

    const activated = await request(app)
      .post('/api/subscription-activation')
      .set('X-Forwarded-For', IP)
      .send({ key, email: EMAIL, externalProvider: 'github', externalId: 'zoe-4242' });
    expect(activated.status).toBe(200);
    const signup = (i: number) =>
      request(app)
        .post('/api/subscriptions')
        .set('X-Forwarded-For', IP)
        .send({ email: `s${i}@example.org` });
    expect([(await signup(1)).status, (await signup(2)).status, (await signup(3)).status]).toEqual([
      201, 201, 429,
    ]);

    // Over the form budget, the backend's questions are still answered.
    for (let i = 0; i < 5; i++) {
      const res = await get(info('github', 'zoe-4242'));
      expect({ i, status: res.status, email: res.body.email }).toEqual({
        i,
        status: 200,
        email: EMAIL,
      });
    }
  });

  it('is not charged in proxy mode either', async () => {
    const backend = await startBackend();
    try {
      backend.respondWith((_req, res) =>
        res.status(200).json({ email: 'x@example.org', isActive: true, spaceLimit: 1 }),
      );
      const { app } = site({ SIGNUP_RATE_LIMIT: '2', BACKEND_URL: backend.url });
      for (let i = 0; i < 5; i++) {
        const res = await request(app)
          .get(info('github', String(i)))
          .set('X-Forwarded-For', IP)
          .set(withToken);
        expect({ i, status: res.status }).toEqual({ i, status: 200 });
      }
      const activation = () =>
        request(app)
          .post('/api/subscription-activation')
          .set('X-Forwarded-For', IP)
          .send({ key: 'k', email: 'a@b.co' });
      expect(await statusesInTurn(3, activation)).toEqual([200, 200, 429]);
    } finally {
      await backend.close();
    }
  });
});

describe('GET /api/subscription-info: the log', () => {
  const secrets = {
    email: 'zoe.logsecret@mailbox.example',
    token: TOKEN,
    wrongToken: 'wrong-token-7a7a7a7a7a7a',
    externalId: 'acct-9c4d1f',
    externalEmail: 'gh.logsecret@users.example',
  };

  /**
   * Binds an account, then asks about it every way the matrix does; resolves with the whole log.
   */
  async function logOfTheMatrix() {
    const { logger, lines } = capturingLogger();
    const { app, store } = site({}, logger);
    const key = await bindAccount(app, store, secrets.email, 'github', secrets.externalId, {
      externalEmail: secrets.externalEmail,
    });
    const path = info('github', secrets.externalId);
    const answers = [];
    for (const [method, headers] of [
      ['GET', withToken],
      ['GET', { Authorization: `Token ${secrets.wrongToken}` }],
      ['GET', { Authorization: `Bearer ${TOKEN}` }],
      ['GET', {}],
      ['HEAD', withToken],
      ['POST', withToken],
    ] as const) {
      answers.push((await raw(app, path, headers, method)).status);
    }
    answers.push(
      (await raw(app, info('GitHub', encodeURIComponent(secrets.externalId)), withToken)).status,
    );
    answers.push((await raw(app, info('github', 'nobody-1'), withToken)).status);
    expect(answers).toEqual([200, 401, 401, 401, 200, 405, 200, 404]);
    const completed = () => lines.filter((line) => line.includes('"request completed"')).length;
    await until('every call is logged', () => completed() >= answers.length + 1);
    return { log: lines.join('\n'), key };
  }

  it('never names the address, the key, the token or the account e-mail, after the whole matrix', async () => {
    const { log, key } = await logOfTheMatrix();
    const { externalId: _personalButSeparate, ...others } = secrets;
    const found = Object.entries({ ...others, key }).filter(([, value]) => log.includes(value));
    expect(found).toEqual([]);
  });

  // The access log names each request's path; for this route the path holds the account id, which
  // the log line leaves out (401s, 405s and HEADs included).
  it('never names the account id, after the whole matrix', async () => {
    const { log } = await logOfTheMatrix();
    expect(log.split('\n').filter((line) => line.includes(secrets.externalId))).toEqual([]);
  });
});
