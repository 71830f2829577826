// Cached pages: answered before Express with the same bytes and headers the full stack sent,
// a hash-based CSP, and never one visitor's ?email in another visitor's page.
import { createHash } from 'node:crypto';
import zlib from 'node:zlib';
import request from 'supertest';
import { createApp } from '../../server/app';
import { createPageCache, toCachedPage } from '../../server/page-cache';
import { capturingLogger, testConfig } from '../support/config';
import { rawGet } from '../support/http';

const HOST = { Host: 'orgnote.test' };

function inlineScripts(html: string): string[] {
  return [...html.matchAll(/<script(?![^>]*\bsrc=)(?![^>]*application\/json)[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
}

describe('page cache', () => {
  it('answers the second visitor with the same bytes and headers as the first', async () => {
    const { logger, lines } = capturingLogger();
    const app = createApp(testConfig(), { logger });
    const first = await rawGet(app, '/', HOST);
    const second = await rawGet(app, '/', HOST);
    expect(second.body.equals(first.body)).toBe(true);
    for (const name of ['content-type', 'content-security-policy', 'x-content-type-options', 'referrer-policy', 'strict-transport-security', 'cross-origin-opener-policy']) {
      expect({ name, value: second.headers[name] }).toEqual({ name, value: first.headers[name] });
    }
    expect(second.headers['x-powered-by']).toBeUndefined();
    expect(lines.filter((l) => l.includes('"cache":"hit"'))).toHaveLength(1);
    expect(lines.join('\n')).not.toMatch(/orgnote\.test\/\?/);
  });

  it('allows exactly the inline scripts of the page by hash, with no nonce and no unsafe-inline', async () => {
    const app = createApp(testConfig());
    await rawGet(app, '/', HOST);
    const res = await rawGet(app, '/', HOST);
    const html = res.body.toString();
    const scriptSrc = String(res.headers['content-security-policy']).match(/script-src ([^;]+)/)![1].split(' ');
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

  it('answers HEAD from the cache without a body', async () => {
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
      expect((await request(app).get('/').set('Host', 'a.example')).text).toContain('<link rel="canonical" href="http://a.example/"/>');
      expect((await request(app).get('/').set('Host', 'b.example')).text).toContain('<link rel="canonical" href="http://b.example/"/>');
    }
  });

  it('caches only the pages as linked, not case or slash variants', async () => {
    const { logger, lines } = capturingLogger();
    const app = createApp(testConfig(), { logger });
    for (const path of ['/ACTIVATE', '/activate/', '/ACTIVATE', '/activate/']) expect((await request(app).get(path).set(HOST)).status).toBe(200);
    expect(lines.some((l) => l.includes('"cache":"hit"'))).toBe(false);
  });

  it('does not cache a 404', async () => {
    const { logger, lines } = capturingLogger();
    const app = createApp(testConfig(), { logger });
    expect((await request(app).get('/missing')).status).toBe(404);
    expect((await request(app).get('/missing')).status).toBe(404);
    expect(lines.some((l) => l.includes('"cache":"hit"'))).toBe(false);
  });

  it('holds a bounded number of pages, dropping the least recently used', () => {
    const cache = createPageCache(2);
    const page = (text: string) => toCachedPage(text, { 'content-type': 'text/html' });
    cache.set('a', page('A'));
    cache.set('b', page('B'));
    cache.get('a');
    cache.set('c', page('C'));
    expect(cache.size).toBe(2);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')?.identity.toString()).toBe('A');
  });
});
