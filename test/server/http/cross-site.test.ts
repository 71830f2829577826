// Cross-site protection on the state-changing handlers (the API's POSTs and the native form):
// another website must not make a visitor's browser sign addresses up. Refused before the body is
// read, so a refusal stores nothing, forwards nothing and is not charged to the per-IP limit.
import type { IncomingMessage } from 'node:http';
import request from 'supertest';
import { createApp } from '../../../server/app';
import { CROSS_SITE_REFUSED, crossSiteCheck } from '../../../server/http/cross-site';
import { openSqliteStore, type Store } from '../../../server/store';
import { startBackend, type TestBackend } from '../../support/backend';
import { testConfig } from '../../support/config';
import { stopClockInOneRateWindow } from '../../support/rate-window';

const opened: Store[] = [];
const backends: TestBackend[] = [];

afterEach(async () => {
  for (const store of opened.splice(0)) void store.close();
  for (const backend of backends.splice(0)) await backend.close();
});

function site(env: Record<string, string> = {}) {
  const config = testConfig(env);
  const store = openSqliteStore(config);
  opened.push(store);
  return { config, store, app: createApp(config, { store }) };
}

type App = ReturnType<typeof createApp>;
type Headers = Record<string, string>;

const OWN = 'http://orgnote.test';
const PARTNER = 'https://partner.example';

describe('crossSiteCheck', () => {
  const asRequest = (headers: Headers) => ({ headers }) as unknown as IncomingMessage;
  // The request's own origin, as the request pipeline works it out from Host (and trusted
  // X-Forwarded-*).
  const client = { origin: OWN };
  const cases = (rows: [name: string, headers: Headers, allowed: boolean][]) =>
    rows.map(([name, headers, allowed]) => ({
      name,
      headers,
      allowed,
      verdict: allowed ? 'allowed' : 'refused',
    }));

  describe('without SITE_URL: the request’s own origin is ours', () => {
    const allow = crossSiteCheck(testConfig({ ALLOWED_ORIGINS: PARTNER }));

    it.each(
      cases([
        ['another site’s Origin', { origin: 'https://evil.example' }, false],
        ['Origin null (sandboxed frame, file: page)', { origin: 'null' }, false],
        ['the request’s own origin', { origin: OWN }, true],
        ['the own origin in other letter case', { origin: 'HTTP://OrgNote.TEST' }, true],
        ['the own host over another scheme', { origin: 'https://orgnote.test' }, false],
        ['the own host on another port', { origin: 'http://orgnote.test:8080' }, false],
        ['an ALLOWED_ORIGINS origin', { origin: PARTNER }, true],
        [
          'an ALLOWED_ORIGINS origin in other letter case',
          { origin: 'HTTPS://Partner.EXAMPLE' },
          true,
        ],
        [
          'an ALLOWED_ORIGINS origin that the browser calls cross-site',
          { origin: PARTNER, 'sec-fetch-site': 'cross-site' },
          true,
        ],
        [
          'another site’s Origin even if Sec-Fetch-Site claims same-origin',
          { origin: 'https://evil.example', 'sec-fetch-site': 'same-origin' },
          false,
        ],
        ['no Origin, Sec-Fetch-Site cross-site', { 'sec-fetch-site': 'cross-site' }, false],
        ['no Origin, Sec-Fetch-Site same-origin', { 'sec-fetch-site': 'same-origin' }, true],
        [
          'no Origin, Sec-Fetch-Site none (typed or bookmarked)',
          { 'sec-fetch-site': 'none' },
          true,
        ],
        ['neither header (curl, the backend)', {}, true],
      ]),
    )('$name → $verdict', ({ headers, allowed }) => {
      expect(allow(asRequest(headers), client)).toBe(allowed);
    });
  });

  describe('with SITE_URL: only SITE_URL’s origin is ours, whatever the request was addressed to', () => {
    const allow = crossSiteCheck(
      testConfig({ SITE_URL: 'https://orgnote.example/', ALLOWED_ORIGINS: PARTNER }),
    );

    it.each(
      cases([
        ['SITE_URL’s origin', { origin: 'https://orgnote.example' }, true],
        ['SITE_URL’s origin in other letter case', { origin: 'HTTPS://OrgNote.Example' }, true],
        ['the request’s own origin, which is not SITE_URL', { origin: OWN }, false],
        ['an ALLOWED_ORIGINS origin', { origin: PARTNER }, true],
        ['another site’s Origin', { origin: 'https://evil.example' }, false],
        ['Origin null', { origin: 'null' }, false],
        ['no Origin, Sec-Fetch-Site cross-site', { 'sec-fetch-site': 'cross-site' }, false],
        ['no Origin, Sec-Fetch-Site same-origin', { 'sec-fetch-site': 'same-origin' }, true],
        ['no Origin, Sec-Fetch-Site none', { 'sec-fetch-site': 'none' }, true],
        ['neither header', {}, true],
      ]),
    )('$name → $verdict', ({ headers, allowed }) => {
      expect(allow(asRequest(headers), client)).toBe(allowed);
    });
  });
});

/** The two handlers a signup can come through, each answering a refusal its own way. */
const handlers = {
  api: {
    post: (app: App) =>
      request(app)
        .post('/api/subscriptions')
        .field('email', 'a@b.co')
        .field('description', 'hello'),
    accepted: (res: request.Response) => expect(res.status).toBe(201),
    refused: (res: request.Response) => {
      expect(res.status).toBe(403);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual({ error: expect.any(String) });
    },
  },
  'native form': {
    // A browser's navigation: it asks for HTML, so a refusal is a page with a way back.
    post: (app: App) =>
      request(app)
        .post('/?index')
        .set('Accept', 'text/html')
        .field('email', 'a@b.co')
        .field('description', 'hello'),
    accepted: (res: request.Response) => {
      expect(res.status).toBe(303);
      expect(res.headers.location).toBe('/?joined');
    },
    refused: (res: request.Response) => {
      expect(res.status).toBe(403);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toContain(CROSS_SITE_REFUSED);
      expect(res.text).toContain('<a href="/">Back to the waitlist</a>');
    },
  },
} as const;
type Handler = keyof typeof handlers;
const HANDLERS = Object.keys(handlers) as Handler[];

// What a browser sends in each situation; supertest's own Host is 127.0.0.1:<port>.
const matrix: [string, Headers, Record<string, string>, boolean][] = [
  ['Origin https://evil.example', { Origin: 'https://evil.example' }, {}, false],
  ['Origin null', { Origin: 'null' }, {}, false],
  ['Origin of the request itself', { Host: 'orgnote.test', Origin: OWN }, {}, true],
  [
    'Origin in ALLOWED_ORIGINS, Sec-Fetch-Site cross-site',
    { Origin: PARTNER, 'Sec-Fetch-Site': 'cross-site' },
    { ALLOWED_ORIGINS: PARTNER },
    true,
  ],
  ['no Origin, Sec-Fetch-Site cross-site', { 'Sec-Fetch-Site': 'cross-site' }, {}, false],
  ['no Origin, Sec-Fetch-Site same-origin', { 'Sec-Fetch-Site': 'same-origin' }, {}, true],
  ['neither header', {}, {}, true],
  [
    'the request’s own origin when SITE_URL names another',
    { Host: 'orgnote.test', Origin: OWN },
    { SITE_URL: 'https://orgnote.example' },
    false,
  ],
  [
    'SITE_URL’s origin, whatever the Host',
    { Host: 'orgnote.test', Origin: 'https://orgnote.example' },
    { SITE_URL: 'https://orgnote.example' },
    true,
  ],
  [
    'the public origin behind a trusted proxy (TRUST_PROXY=loopback)',
    {
      'X-Forwarded-Proto': 'https',
      'X-Forwarded-Host': 'orgnote.example',
      Origin: 'https://orgnote.example',
    },
    { TRUST_PROXY: 'loopback' },
    true,
  ],
  [
    'the same request with TRUST_PROXY=false (X-Forwarded-* not believed)',
    {
      'X-Forwarded-Proto': 'https',
      'X-Forwarded-Host': 'orgnote.example',
      Origin: 'https://orgnote.example',
    },
    { TRUST_PROXY: 'false' },
    false,
  ],
];

describe.each(HANDLERS)('cross-site check through the %s', (handler) => {
  const cases = matrix.map(([name, headers, env, accepted]) => ({
    name,
    headers,
    env,
    accepted,
    verdict: accepted ? 'accepted' : 'refused',
  }));

  it.each(cases)('$name → $verdict', async ({ headers, env, accepted }) => {
    const { app, store } = site(env);
    const res = await handlers[handler].post(app).set(headers);
    if (accepted) handlers[handler].accepted(res);
    else handlers[handler].refused(res);
    // Counted after every request: a refusal stores nothing, an acceptance exactly one signup.
    expect(await store.signups.count()).toBe(accepted ? 1 : 0);
  });
});

describe('a refusal is not charged to the rate limit', () => {
  // Its requests in one of the counters' fixed windows (rate-window.ts).
  beforeEach(stopClockInOneRateWindow);
  afterEach(() => jest.useRealTimers());
  it.each<[Handler, number]>([
    ['api', 201],
    ['native form', 303],
  ])(
    'through the %s: 5 refusals, then 2 signups pass and the 3rd gets 429',
    async (handler, ok) => {
      // A hostile page can make a visitor's browser post many times; that must not lock the visitor
      // out.
      const { app, store } = site({ SIGNUP_RATE_LIMIT: '2' });
      for (let i = 0; i < 5; i++)
        expect(
          (await handlers[handler].post(app).set('Origin', 'https://evil.example')).status,
        ).toBe(403);
      const statuses = [];
      for (let i = 0; i < 3; i++)
        statuses.push(
          (await handlers[handler].post(app).set('Sec-Fetch-Site', 'same-origin')).status,
        );
      expect(statuses).toEqual([ok, ok, 429]);
      expect(await store.signups.count()).toBe(1); // the same address twice: listed once
    },
  );
});

describe('a refusal reads no body and forwards nothing', () => {
  async function proxied() {
    const backend = await startBackend();
    backends.push(backend);
    return { backend, ...site({ BACKEND_URL: backend.url }) };
  }

  it.each([
    ['the signup API', '/api/subscriptions'],
    ['an API route the proxy relays', '/api/subscription-activation'],
    ['the native form', '/?index'],
  ])('%s: 403, the backend receives nothing and the outbox stays empty', async (_case, path) => {
    const { app, backend, store } = await proxied();
    const res = await request(app)
      .post(path)
      .set('Origin', 'https://evil.example')
      .field('email', 'a@b.co')
      .field('key', 'k')
      .field('description', 'x');
    expect(res.status).toBe(403);
    expect(backend.received).toEqual([]);
    expect(await store.outbox.depth()).toBe(0);
  });

  it.each([
    ['the API', '/api/subscriptions'],
    ['the native form', '/?index'],
  ])(
    '%s: a body over the size limit is refused as cross-site, not as too large (it was never read)',
    async (_case, path) => {
      const { app, backend, store } = await proxied();
      const tooBig = JSON.stringify({ email: 'a@b.co', description: 'x'.repeat(64 * 1024) });
      // The same body from our own page is too large: the limit is real.
      expect((await request(app).post(path).type('json').send(tooBig)).status).toBe(413);
      const res = await request(app)
        .post(path)
        .set('Origin', 'https://evil.example')
        .type('json')
        .send(tooBig);
      expect(res.status).toBe(403);
      expect(backend.received).toEqual([]);
      expect(await store.outbox.depth()).toBe(0);
    },
  );

  it('lets the refused visitor’s own later signup through to the backend', async () => {
    const { app, backend } = await proxied();
    expect((await handlers.api.post(app).set('Origin', 'https://evil.example')).status).toBe(403);
    expect((await handlers.api.post(app)).status).toBe(201);
    expect(backend.received.map((r) => r.fields)).toEqual([
      { email: 'a@b.co', description: 'hello' },
    ]);
  });
});
