// The /api proxy against a real multer backend on 127.0.0.1.
import http from 'node:http';
import zlib from 'node:zlib';
import request from 'supertest';
import { createApp } from '../../../server/app';
import { capturingLogger, testConfig } from '../../support/config';
import { closedPort, startBackend, type TestBackend } from '../../support/backend';
import { listen, rawGet, rawPost } from '../../support/http';

let backend: TestBackend;
let app: ReturnType<typeof createApp>;
let logLines: string[];

beforeAll(async () => {
  backend = await startBackend();
});
afterAll(() => backend.close());
beforeEach(() => {
  backend.received.length = 0;
  backend.respondWith((req, res) => res.status(201).json({ ok: true }));
  const { logger, lines } = capturingLogger();
  logLines = lines;
  // Room for a crowded machine: a backend that answers is never taken for one that does not.
  app = createApp(testConfig({ BACKEND_URL: backend.url, UPSTREAM_TIMEOUT_MS: '10000' }), {
    logger,
  });
});

describe('multipart forms', () => {
  it('re-sends the fields so the backend parses exactly what the browser sent', async () => {
    const description =
      'Ich schreibe Notizen 📝 in org-mode\r\nzweite Zeile — "quoted", commas, ünïcödé';
    const res = await request(app)
      .post('/api/subscriptions?ref=landing')
      .field('email', 'zoë@example.org')
      .field('description', description);
    expect(res.status).toBe(201);
    expect(backend.received).toHaveLength(1);
    const got = backend.received[0];
    expect(got.method).toBe('POST');
    expect(got.url).toBe('/api/subscriptions?ref=landing');
    expect(got.fields).toEqual({ email: 'zoë@example.org', description });
  });

  it('keeps repeated field names as repeated fields', async () => {
    await request(app).post('/api/tags').field('tag', 'a').field('tag', 'b');
    expect(backend.received[0].fields).toEqual({ tag: ['a', 'b'] });
  });

  it('refuses a file part with a 4xx JSON error and forwards nothing', async () => {
    const res = await request(app)
      .post('/api/subscriptions')
      .field('email', 'a@b.co')
      .attach('avatar', Buffer.from('GIF89a'), 'avatar.gif');
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.body).toEqual({ error: expect.any(String) });
    expect(backend.received).toHaveLength(0);
  });

  it('refuses too many fields and oversized fields with 413', async () => {
    let req = request(app).post('/api/subscriptions');
    for (let i = 0; i < 11; i++) req = req.field(`f${i}`, 'x');
    expect((await req).status).toBe(413);
    const big = await request(app)
      .post('/api/subscriptions')
      .field('description', 'x'.repeat(16 * 1024 + 1));
    expect(big.status).toBe(413);
    expect(big.body).toEqual({ error: 'A form field is too long' });
    expect(backend.received).toHaveLength(0);
  });

  it('answers malformed multipart with 400 JSON', async () => {
    const res = await request(app)
      .post('/api/subscriptions')
      .set('Content-Type', 'multipart/form-data; boundary=XYZ')
      .send('--XYZ\r\nContent-Disposition: form-data; name="email"\r\n\r\nhalf a part');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Malformed form data' });
  });
});

describe('other bodies', () => {
  it('forwards JSON byte for byte', async () => {
    const body = '{"email":"zoë@example.org","key":"line1\\nline2 ü"}';
    await request(app)
      .post('/api/subscription-activation')
      .set('Content-Type', 'application/json')
      .send(body);
    expect(backend.received[0].raw?.toString('utf8')).toBe(body);
    expect(backend.received[0].headers['content-type']).toBe('application/json');
  });

  it('forwards urlencoded bodies byte for byte (other routes; a signup is re-sent as its checked fields)', async () => {
    const body = 'email=a%40b.co&description=hello+world%0D%0A%F0%9F%93%9D';
    await request(app)
      .post('/api/notes')
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send(body);
    expect(backend.received[0].raw?.toString('latin1')).toBe(body);
  });

  it('refuses a body over 32 KB with 413 JSON', async () => {
    const res = await request(app)
      .post('/api/subscriptions')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ description: 'x'.repeat(33 * 1024) }));
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: 'Request body too large' });
  });
});

describe('answers from the backend', () => {
  it('relays status, content-type and body unchanged', async () => {
    backend.respondWith((req, res) => {
      res.writeHead(422, { 'Content-Type': 'application/problem+json' });
      res.end('{"error":"Email is taken"}');
    });
    const res = await request(app).post('/api/subscriptions').field('email', 'a@b.co');
    expect(res.status).toBe(422);
    expect(res.headers['content-type']).toBe('application/problem+json');
    expect(res.text).toBe('{"error":"Email is taken"}');
  });

  it("never relays the backend's X-Powered-By or Server header", async () => {
    backend.respondWith((req, res) => {
      res.setHeader('X-Powered-By', 'Express');
      res.setHeader('Server', 'backend/1.0');
      res.status(200).json({ ok: true });
    });
    const res = await request(app).get('/api/status');
    expect(res.status).toBe(200);
    expect(res.headers['x-powered-by']).toBeUndefined();
    expect(res.headers.server).toBeUndefined();
  });

  it('relays a compressed answer with its Content-Encoding', async () => {
    backend.respondWith((req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' });
      res.end(zlib.gzipSync('{"ok":true}'));
    });
    const res = await request(app).get('/api/status');
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.body).toEqual({ ok: true });
  });

  it('relays a backend 500 as it is', async () => {
    backend.respondWith((req, res) => res.status(500).type('text/plain').send('boom'));
    const res = await request(app).get('/api/anything');
    expect(res.status).toBe(500);
    expect(res.text).toBe('boom');
  });
});

describe('headers', () => {
  /** The headers the backend received for a GET of /api/subscriptions sent with these. */
  async function relayedHeaders(sent: Record<string, string>) {
    await request(app).get('/api/subscriptions').set(sent);
    return backend.received.at(-1)!.headers;
  }

  it('sets X-Forwarded-* and drops hop-by-hop headers and the client Host', async () => {
    const headers = await relayedHeaders({
      Host: 'orgnote.example',
      Connection: 'keep-alive, X-Secret-Hop',
      'X-Secret-Hop': 'do-not-forward',
      'Keep-Alive': 'timeout=5',
      TE: 'trailers',
      Upgrade: 'websocket',
      'Proxy-Authorization': 'Basic abc',
      'X-Custom': 'kept',
    });
    expect(headers['x-forwarded-for']).toMatch(/127\.0\.0\.1/);
    expect(headers['x-forwarded-proto']).toBe('http');
    expect(headers['x-forwarded-host']).toBe('orgnote.example');
    expect(headers.host).toBe(new URL(backend.url).host);
    expect(headers['x-custom']).toBe('kept');
    for (const name of ['x-secret-hop', 'keep-alive', 'te', 'upgrade', 'proxy-authorization']) {
      expect(headers[name]).toBeUndefined();
    }
  });

  it("passes on no other claim of the client's address, nor the console's cookies", async () => {
    const headers = await relayedHeaders({
      Forwarded: 'for=1.2.3.4',
      'X-Real-IP': '1.2.3.4',
      'True-Client-IP': '1.2.3.4',
      'CF-Connecting-IP': '1.2.3.4',
      Cookie:
        'orgnote-admin=session-id; theirs=1; __Host-orgnote-admin=other-id; ' +
        'orgnote-admin-device=a.b.c; __Host-orgnote-admin-device=d.e.f',
    });
    for (const name of ['forwarded', 'x-real-ip', 'true-client-ip', 'cf-connecting-ip'])
      expect([name, headers[name]]).toEqual([name, undefined]);
    expect(headers['x-forwarded-for']).toMatch(/127\.0\.0\.1/);
    expect(headers.cookie).toBe('theirs=1');
    expect((await relayedHeaders({ Cookie: 'orgnote-admin=session-id' })).cookie).toBeUndefined();
  });

  it('relays a gzip-encoded body decoded, without its Content-Encoding', async () => {
    const body = '{"email":"zoe@example.org","key":"k"}';
    const gzipped = zlib.gzipSync(body);
    const { server, port } = await listen(app);
    try {
      const status = await new Promise<number | undefined>((resolve, reject) => {
        const headers = {
          'content-type': 'application/json',
          'content-encoding': 'gzip',
          'content-length': gzipped.length,
        };
        const req = http.request(
          {
            host: '127.0.0.1',
            port,
            path: '/api/subscription-activation',
            method: 'POST',
            headers,
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode));
          },
        );
        req.on('error', reject);
        req.end(gzipped);
      });
      expect(status).toBe(201);
    } finally {
      server.close();
    }
    expect(backend.received[0].raw?.toString('utf8')).toBe(body);
    expect(backend.received[0].headers['content-encoding']).toBeUndefined();
  });

  it('honours X-Forwarded-For from a trusted proxy only', async () => {
    await request(app)
      .get('/api/x')
      .set('X-Forwarded-For', '203.0.113.7')
      .set('X-Forwarded-Proto', 'https');
    expect(backend.received[0].headers['x-forwarded-for']).toBe('203.0.113.7, 127.0.0.1');
    expect(backend.received[0].headers['x-forwarded-proto']).toBe('https');

    const untrusting = createApp(testConfig({ BACKEND_URL: backend.url, TRUST_PROXY: 'false' }));
    await request(untrusting)
      .get('/api/x')
      .set('X-Forwarded-For', '203.0.113.7')
      .set('X-Forwarded-Proto', 'https');
    expect(backend.received[1].headers['x-forwarded-for']).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
    expect(backend.received[1].headers['x-forwarded-proto']).toBe('http');
  });
});

describe('path traversal', () => {
  it.each([
    '/api/../healthz',
    '/api/./../secret',
    '/api/%2e%2e/secret',
    '/api/%2E%2E/secret',
    '/api/.%2e/secret',
    '/api/%252e%252e/secret',
    '/api/..%2fsecret',
    '/api/..%5csecret',
    '/api/subscriptions/..%2F..%2Fadmin',
    '/api/sub\\..\\..\\secret',
    '/api/..;/admin',
    '/api/subscriptions;jsessionid=1/../x',
    '/api/%25252525252e%25252525252e/secret',
    '/api/%zz',
  ])('refuses %s with 400 JSON and never calls the backend', async (path) => {
    // supertest would normalise the path, so it goes out as a raw request line
    const res = await rawGet(app, path);
    expect({ path, status: res.status }).toEqual({ path, status: 400 });
    expect(JSON.parse(res.body.toString())).toEqual({ error: 'Invalid API path' });
    expect(backend.received).toHaveLength(0);
  });
});

describe('route spellings', () => {
  it.each([
    '/api/Subscriptions',
    '/api/subscriptions/',
    '/api//subscriptions',
    '/api/subscriptions//',
    '/api/%73ubscriptions',
    '/api/%2573ubscriptions',
    '/api/SUBSCRIPTION-ACTIVATION',
    '/api/subscription%2Dactivation',
  ])(
    'checks %s like the route it spells, so nothing malformed reaches the backend',
    async (path) => {
      expect(
        (
          await rawPost(
            app,
            path,
            JSON.stringify({ email: 'not an address', token: '' }),
            'application/json',
          )
        ).status,
      ).toBe(400);
      expect(backend.received).toHaveLength(0);
    },
  );
});

describe('failures', () => {
  it('answers 502 JSON when the backend is unreachable', async () => {
    const down = createApp(testConfig({ BACKEND_URL: `http://127.0.0.1:${await closedPort()}` }));
    const res = await request(down)
      .post('/api/subscription-activation')
      .field('email', 'a@b.co')
      .field('key', 'k');
    expect(res.status).toBe(502);
    expect(res.body).toEqual({ error: 'The backend is unavailable' });
  });

  it('answers 504 JSON when the backend does not answer in time', async () => {
    // The backend never answers: only the proxy's own timer (UPSTREAM_TIMEOUT_MS) can end this.
    backend.respondWith(() => new Promise(() => {}));
    const impatient = createApp(
      testConfig({ BACKEND_URL: backend.url, UPSTREAM_TIMEOUT_MS: '300' }),
      { logger: capturingLogger().logger },
    );
    const res = await request(impatient)
      .post('/api/subscription-activation')
      .field('email', 'a@b.co')
      .field('key', 'k');
    expect(res.status).toBe(504);
    expect(res.body).toEqual({ error: 'The backend did not answer in time' });
  });

  it('cancels the backend call when the client disconnects', async () => {
    let backendReached!: () => void;
    const reached = new Promise<void>((r) => (backendReached = r));
    let backendClosed!: () => void;
    const closed = new Promise<void>((r) => (backendClosed = r));
    backend.respondWith((req) => {
      req.socket.once('close', () => backendClosed());
      backendReached();
    });
    const slowApp = createApp(
      testConfig({ BACKEND_URL: backend.url, UPSTREAM_TIMEOUT_MS: '60000' }),
    );
    const { server, port } = await listen(slowApp);
    const client = http.request({ host: '127.0.0.1', port, path: '/api/slow', method: 'GET' });
    client.on('error', () => {});
    client.end();
    await reached;
    client.destroy();
    // The backend's timeout is a minute away: only the cancelled call closes its connection.
    await closed;
    server.close();
  });

  it('never writes form values or e-mail addresses to the log', async () => {
    await request(app)
      .post('/api/subscriptions?email=leak%40example.org')
      .field('email', 'secret@example.org')
      .field('description', 'my private words');
    const log = logLines.join('\n');
    expect(logLines.length).toBeGreaterThan(0);
    expect(log).not.toMatch(/example\.org|leak|private words/);
  });
});
