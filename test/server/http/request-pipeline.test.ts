// The request pipeline (server/http/request-pipeline.ts): every request crosses the same preamble
// whichever handler answers it (the API, a prerendered page, Express), so every answer has the same
// security headers and its own request id, and every request leaves exactly one access-log line
// that holds no query string and no form value. Cache-Control follows what a page may reveal.
import request from 'supertest';
import { createApp } from '../../../server/app';
import { loadPageAssets } from '../../../server/pages/static-files';
import { openSqliteStore, type Store } from '../../../server/store';
import { capturingLogger, testConfig } from '../../support/config';
import { until } from '../../support/wait';

const opened: Store[] = [];

afterEach(() => {
  for (const store of opened.splice(0)) void store.close();
});

function site(deps: Parameters<typeof createApp>[1] = {}, env: Record<string, string> = {}) {
  const config = testConfig(env);
  const store = openSqliteStore(config);
  opened.push(store);
  return { store, app: createApp(config, { store, ...deps }) };
}

type App = ReturnType<typeof createApp>;

const script = loadPageAssets().scripts[0];

/** One request to each kind of route, with what it answers when all goes well. */
const routes: [kind: string, send: (app: App) => request.Test, status: number][] = [
  ['API, unknown route (embedded)', (app) => request(app).get('/api/nowhere'), 404],
  [
    'API, signup',
    (app) =>
      request(app).post('/api/subscriptions').field('email', 'a@b.co').field('description', 'x'),
    201,
  ],
  ['prerendered page', (app) => request(app).get('/').set('Host', 'orgnote.test'), 200],
  ['rendered page', (app) => request(app).get('/activate?email=a%40b.co'), 200],
  ['hashed asset', (app) => request(app).get(script), 200],
  ['404 page', (app) => request(app).get('/no-such-page'), 404],
  ['robots.txt', (app) => request(app).get('/robots.txt'), 200],
];

/** Headers that are the same on every answer, whichever handler wrote it. */
const FIXED = [
  'strict-transport-security',
  'x-content-type-options',
  'x-frame-options',
  'referrer-policy',
  'cross-origin-opener-policy',
  'cross-origin-resource-policy',
  'origin-agent-cluster',
  'x-dns-prefetch-control',
  'x-download-options',
  'x-permitted-cross-domain-policies',
  'x-xss-protection',
];

function directives(csp: string | undefined): Map<string, string[]> {
  return new Map(
    (csp ?? '').split(';').map((part) => {
      const [name, ...values] = part.trim().split(/\s+/);
      return [name, values] as [string, string[]];
    }),
  );
}

describe('the request pipeline', () => {
  it('gives every kind of answer the same security headers, a framing ban and its own request id', async () => {
    const { app } = site();
    const answers = [];
    for (const [kind, send, status] of routes) {
      const res = await send(app);
      expect({ kind, status: res.status }).toEqual({ kind, status });
      answers.push({ kind, res });
    }

    const fixedOf = (res: request.Response) =>
      Object.fromEntries(FIXED.map((name) => [name, res.headers[name]]));
    const reference = fixedOf(answers[0].res);
    for (const name of FIXED)
      expect({ name, value: reference[name] }).toEqual({ name, value: expect.any(String) });
    for (const { kind, res } of answers) {
      expect({ kind, headers: fixedOf(res) }).toEqual({ kind, headers: reference });
      // Pages swap in their own script sources, but none may be framed or load from elsewhere.
      const csp = directives(res.headers['content-security-policy']);
      expect({
        kind,
        frameAncestors: csp.get('frame-ancestors'),
        defaultSrc: csp.get('default-src'),
      }).toEqual({
        kind,
        frameAncestors: ["'none'"],
        defaultSrc: ["'self'"],
      });
    }

    const ids = answers.map(({ res }) => res.headers['x-request-id']);
    for (const id of ids) expect(id).toEqual(expect.any(String));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('writes exactly one access-log line per request, with its kind and status and no query, address or form value', async () => {
    const { logger, lines } = capturingLogger();
    const { app } = site({ logger });
    const sent: {
      res: request.Response;
      method: string;
      path: string;
      kind: string;
      status: number;
    }[] = [];
    const send = async (
      req: request.Test,
      method: string,
      path: string,
      kind: string,
      status: number,
    ) => sent.push({ res: await req, method, path, kind, status });

    await send(request(app).get('/?email=alice%40example.org'), 'GET', '/', 'app', 200);
    await send(
      request(app)
        .post('/api/subscriptions')
        .field('email', 'bob@example.org')
        .field('description', 'secret words'),
      'POST',
      '/api/subscriptions',
      'api',
      201,
    );
    await send(request(app).get('/'), 'GET', '/', 'page', 200);
    await send(request(app).get(script), 'GET', script, 'app', 200);

    // The line is written when the answer is finished, which the client may see a moment earlier.
    const accessLines = () =>
      lines.map((line) => JSON.parse(line)).filter((entry) => entry.msg === 'request completed');
    await until('every request is logged', () => accessLines().length >= sent.length);
    const logged = accessLines();
    expect(logged).toHaveLength(sent.length);
    for (const { res, method, path, kind, status } of sent) {
      const mine = logged.filter((entry) => entry.req.id === res.headers['x-request-id']);
      expect(mine.map((entry) => ({ ...entry.req, status: entry.res.status }))).toEqual([
        { id: res.headers['x-request-id'], method, path, kind, status },
      ]);
    }

    const log = lines.join('\n');
    for (const secret of ['alice', 'bob', 'example.org', 'secret'])
      expect({ secret, logged: log.includes(secret) }).toEqual({ secret, logged: false });
  });
});

describe('Cache-Control by what a page may reveal', () => {
  it('lets shared caches keep a prerendered page, with an ETag the browser can revalidate', async () => {
    // With SITE_URL: without it the page names the request's Host and is private
    // (pages/forged-host).
    const { app } = site({}, { SITE_URL: 'https://orgnote.test' });
    const res = await request(app).get('/').set('Host', 'orgnote.test');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toMatch(/^public\b/);
    expect(res.headers['cache-control']).toMatch(/\bs-maxage=\d+/);
    expect(res.headers.etag).toMatch(/^"[^"]+"$/);
    const again = await request(app)
      .get('/')
      .set('Host', 'orgnote.test')
      .set('If-None-Match', res.headers.etag);
    expect(again.status).toBe(304);
  });

  it.each<[string, (app: App) => request.Test, number]>([
    ['a page filled in from ?email=', (app) => request(app).get('/?email=a%40b.co'), 200],
    [
      'the native form re-rendered with the visitor’s input (400)',
      (app) =>
        request(app)
          .post('/?index')
          .field('email', 'not an email')
          .field('description', 'about me'),
      400,
    ],
    [
      'the native form’s error page (cross-site 403)',
      (app) =>
        request(app)
          .post('/?index')
          .set('Accept', 'text/html')
          .set('Origin', 'https://evil.example')
          .field('email', 'a@b.co'),
      403,
    ],
  ])('keeps %s out of every cache: private, no-store', async (_case, send, status) => {
    const { app } = site();
    const res = await send(app);
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(res.headers.etag).toBeUndefined();
  });
});
