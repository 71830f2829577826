// Prerendered pages: rendered once per origin, then answered with the same bytes and headers
// (a hash-based CSP, a strong ETag, a Cache-Control a CDN may honour), and never one visitor's
// ?email in another visitor's page.
import { createHash } from 'node:crypto';
import zlib from 'node:zlib';
import request from 'supertest';
import { createApp } from '../../../server/app';
import { prerenderedPages } from '../../../server/pages/prerendered';
import { capturingLogger, testConfig } from '../../support/config';
import { listen, rawGet, rawRequest } from '../../support/http';

const HOST = { Host: 'orgnote.test' };

function inlineScripts(html: string): string[] {
  return [
    ...html.matchAll(/<script(?![^>]*\bsrc=)(?![^>]*application\/json)[^>]*>([\s\S]*?)<\/script>/g),
  ].map((m) => m[1]);
}

/** Log lines of requests the prerendered store answered. */
const prerenderedLines = (lines: string[]) => lines.filter((l) => l.includes('"kind":"page"'));

describe('prerendered pages', () => {
  it('answers the second visitor with the same bytes and headers as the first', async () => {
    const { logger, lines } = capturingLogger();
    const app = createApp(testConfig(), { logger });
    const first = await rawGet(app, '/', HOST);
    const second = await rawGet(app, '/', HOST);
    expect(second.body.equals(first.body)).toBe(true);
    for (const name of [
      'content-type',
      'content-security-policy',
      'x-content-type-options',
      'referrer-policy',
      'strict-transport-security',
      'cross-origin-opener-policy',
    ]) {
      expect({ name, value: second.headers[name] }).toEqual({ name, value: first.headers[name] });
    }
    expect(second.headers['x-powered-by']).toBeUndefined();
    expect(prerenderedLines(lines)).toHaveLength(2);
    expect(lines.join('\n')).not.toMatch(/orgnote\.test\/\?/);
  });

  it('allows exactly the inline scripts of the page by hash, with no nonce and no unsafe-inline', async () => {
    const app = createApp(testConfig());
    await rawGet(app, '/', HOST);
    const res = await rawGet(app, '/', HOST);
    const html = res.body.toString();
    const scriptSrc = String(res.headers['content-security-policy'])
      .match(/script-src ([^;]+)/)![1]
      .split(' ');
    const scripts = inlineScripts(html);
    expect(scripts.length).toBeGreaterThan(0);
    for (const body of scripts) {
      expect(scriptSrc).toContain(`'sha256-${createHash('sha256').update(body).digest('base64')}'`);
    }
    expect(scriptSrc).toContain("'self'");
    expect(scriptSrc.join(' ')).not.toMatch(/nonce|unsafe-inline|unsafe-eval/);
    expect(html).not.toContain('nonce=');
  });

  it('serves brotli or gzip made once, and plain bytes to clients that want neither', async () => {
    const app = createApp(testConfig());
    const plain = await rawGet(app, '/', HOST);
    const br = await rawGet(app, '/', { ...HOST, 'Accept-Encoding': 'br, gzip' });
    const gzip = await rawGet(app, '/', { ...HOST, 'Accept-Encoding': 'gzip' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(br.headers.vary).toBe('Accept-Encoding');
    expect(zlib.brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
    expect(zlib.gunzipSync(gzip.body).equals(plain.body)).toBe(true);
    expect(Number(br.headers['content-length'])).toBe(br.body.length);
  });

  it('answers HEAD without a body', async () => {
    const app = createApp(testConfig());
    await rawGet(app, '/activate', HOST);
    const head = await request(app).head('/activate').set(HOST);
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(Number(head.headers['content-length'])).toBeGreaterThan(1000);
  });

  it("never shows one visitor's ?email to another, in either order", async () => {
    const app = createApp(testConfig());
    const personal = await request(app).get('/?email=alice%40example.org').set(HOST);
    expect(personal.text).toContain('value="alice@example.org"');
    const anonymous = await request(app).get('/').set(HOST);
    expect(anonymous.text).not.toContain('alice@example.org');
    expect(anonymous.text).toMatch(/name="email" value=""/);
    const other = await request(app).get('/?email=bob%40example.org').set(HOST);
    expect(other.text).toContain('value="bob@example.org"');
    expect(other.text).not.toContain('alice');
    const activate = await request(app).get('/activate?email=carol%40example.org').set(HOST);
    expect((await request(app).get('/activate').set(HOST)).text).not.toContain('carol');
    expect(activate.text).toContain('carol@example.org');
  });

  it('keeps each origin apart when SITE_URL is unset (canonical links follow the host)', async () => {
    const app = createApp(testConfig());
    for (let i = 0; i < 2; i++) {
      expect((await request(app).get('/').set('Host', 'a.example')).text).toContain(
        '<link rel="canonical" href="http://a.example/"/>',
      );
      expect((await request(app).get('/').set('Host', 'b.example')).text).toContain(
        '<link rel="canonical" href="http://b.example/"/>',
      );
    }
  });

  it('prerenders only the pages as linked: case or slash variants and a 404 render per request, privately', async () => {
    const { logger, lines } = capturingLogger();
    const app = createApp(testConfig(), { logger });
    for (const path of ['/ACTIVATE', '/activate/', '/missing']) {
      const res = await request(app).get(path).set(HOST);
      expect(res.status).toBe(path === '/missing' ? 404 : 200);
      expect(res.headers['cache-control']).toBe('private, no-store');
      expect(res.headers.etag).toBeUndefined();
    }
    expect(prerenderedLines(lines)).toEqual([]);
  });

  it('lets a shared cache keep a page for PAGE_CACHE_SECONDS, and browsers revalidate by ETag', async () => {
    const app = createApp(
      testConfig({ PAGE_CACHE_SECONDS: '120', SITE_URL: 'https://orgnote.test' }),
    );
    const res = await rawGet(app, '/', { ...HOST, 'Accept-Encoding': 'br' });
    expect(res.headers['cache-control']).toBe('public, max-age=0, s-maxage=120');
    expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]{22}-br"$/);
    const plain = await rawGet(app, '/', HOST);
    expect(plain.headers.etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    expect(plain.headers.etag).not.toBe(res.headers.etag);
    // The default: five minutes. Without SITE_URL the page names the request's Host: private.
    expect(
      (await rawGet(createApp(testConfig({ SITE_URL: 'https://orgnote.test' })), '/', HOST))
        .headers['cache-control'],
    ).toBe('public, max-age=0, s-maxage=300');
    expect((await rawGet(createApp(testConfig()), '/', HOST)).headers['cache-control']).toBe(
      'private, no-cache',
    );
  });

  it('answers 304 with no body for a matching If-None-Match, and 200 for any other tag', async () => {
    const app = createApp(testConfig());
    const { server, port } = await listen(app);
    try {
      const first = await rawRequest(port, '/activate', { ...HOST, 'Accept-Encoding': 'gzip' });
      const etag = String(first.headers.etag);
      const again = await rawRequest(port, '/activate', {
        ...HOST,
        'Accept-Encoding': 'gzip',
        'If-None-Match': `"other", W/${etag}`,
      });
      expect(again.status).toBe(304);
      expect(again.body.length).toBe(0);
      expect(again.headers.etag).toBe(etag);
      expect(again.headers['content-security-policy']).toBe(
        first.headers['content-security-policy'],
      );
      // The same tag names the gzip bytes only: a client wanting brotli gets the brotli page.
      expect(
        (
          await rawRequest(port, '/activate', {
            ...HOST,
            'Accept-Encoding': 'br',
            'If-None-Match': etag,
          })
        ).status,
      ).toBe(200);
      expect(
        (
          await rawRequest(port, '/activate', {
            ...HOST,
            'Accept-Encoding': 'gzip',
            'If-None-Match': '"stale"',
          })
        ).status,
      ).toBe(200);
    } finally {
      server.close();
    }
  });

  it('renders each page once per origin, keeps a bounded number, and tries again after a failed render', async () => {
    const rendered: string[] = [];
    let failNext = false;
    const { logger } = capturingLogger();
    const pages = prerenderedPages({
      securityHeaders: [],
      render: async (path, origin) => {
        rendered.push(origin + path);
        if (failNext) {
          failNext = false;
          throw new Error('render failed');
        }
        return `<p>${origin}${path}</p>`;
      },
      pagePolicy: (sources) => `script-src 'self' ${sources.join(' ')}`,
      cacheSeconds: 60,
      logger,
      maxEntries: 2,
    });
    const get = async (origin: string, path = '/') => {
      const app = (
        req: import('node:http').IncomingMessage,
        res: import('node:http').ServerResponse,
      ) =>
        pages.serve(req, res, {
          id: '1',
          kind: 'page',
          startedAt: 0,
          client: { ip: '', origin, forwarded: {} },
        });
      return rawGet(app, path);
    };
    expect((await get('http://a')).body.toString()).toBe('<p>http://a/</p>');
    await get('http://a');
    await get('http://b');
    await get('http://c');
    await get('http://a'); // dropped as least recently used, so rendered again
    await get('http://c'); // still kept
    expect(rendered).toEqual(['http://a/', 'http://b/', 'http://c/', 'http://a/']);
    failNext = true;
    expect((await get('http://d')).status).toBe(500);
    expect((await get('http://d')).status).toBe(200);
  });
});
