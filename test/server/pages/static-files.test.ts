// Static files: hashed build output cached for a year, public/ briefly; misses are plain 404s;
// everything text-like is compressed.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import request from 'supertest';
import { listen, rawGet, rawRequest } from '../../support/http';
import { createApp } from '../../../server/app';
import { loadPageAssets } from '../../../server/pages/static-files';
import { ASSETS_DIR, PUBLIC_DIR } from '../../../server/paths';
import { testConfig } from '../../support/config';

const app = createApp(testConfig());
const manifest = loadPageAssets();
const script = manifest.scripts[0];
const style = manifest.styles[0];

describe('static assets', () => {
  it('serves hashed scripts, workers and styles immutable for a year', async () => {
    for (const url of [script, manifest.workers['motion-check'], style]) {
      const res = await request(app).get(url);
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    }
    expect((await request(app).get(script)).headers['content-type']).toMatch(/javascript/);
    expect((await request(app).get(style)).headers['content-type']).toMatch(/text\/css/);
  });

  it.each([
    ['br', 'br', '.br'],
    ['gzip', 'gzip', '.gz'],
    ['br;q=0.5, gzip', 'gzip', '.gz'],
  ])(
    'serves the precompressed copy for Accept-Encoding: %s',
    async (accept, encoding, extension) => {
      const res = await rawGet(app, script, { 'Accept-Encoding': accept });
      expect(res.headers['content-encoding']).toBe(encoding);
      expect(res.headers['content-type']).toMatch(/javascript/);
      expect(res.headers.vary).toMatch(/Accept-Encoding/);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(
        res.body.equals(
          fs.readFileSync(path.join(ASSETS_DIR, `${path.basename(script)}${extension}`)),
        ),
      ).toBe(true);
    },
  );

  it('serves the plain file to a client that accepts no compression', async () => {
    const res = await rawGet(app, script, {});
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.body.equals(fs.readFileSync(path.join(ASSETS_DIR, path.basename(script))))).toBe(
      true,
    );
  });

  it('answers a missing asset with a plain 404, never the HTML page', async () => {
    const res = await request(app).get('/assets/entry-DOESNOTEXIST.js');
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.text).not.toContain('<html');
  });

  it('serves no worker from public/, where it would keep its name and a short cache', async () => {
    expect((await request(app).get('/motion-check.js')).status).toBe(404);
  });

  it('serves public files with a short max-age', async () => {
    const res = await request(app).get('/favicon.svg');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=3600');
  });

  it.each([
    ['gzip', (b: Buffer) => zlib.gunzipSync(b)],
    ['br', (b: Buffer) => zlib.brotliDecompressSync(b)],
  ])('compresses HTML and scripts with %s when accepted', async (encoding, decode) => {
    for (const url of ['/', script]) {
      const res = await rawGet(app, url, { 'Accept-Encoding': encoding });
      expect(res.headers['content-encoding']).toBe(encoding);
      const text = decode(res.body).toString('utf8');
      expect(text.length).toBeGreaterThan(res.body.length);
      if (url === '/') expect(text).toContain('Join wait list');
    }
  });
});

describe('static files kept in memory, as a cache or a download manager asks for them', () => {
  const file = (name: string) => fs.readFileSync(path.join(ASSETS_DIR, name));
  const scriptName = path.basename(script);

  it('answers If-None-Match with 304, no body, and the cache headers kept', async () => {
    const first = await rawGet(app, script, { 'Accept-Encoding': 'gzip' });
    const again = await rawGet(app, script, {
      'Accept-Encoding': 'gzip',
      'If-None-Match': first.headers.etag!,
    });
    expect(again.status).toBe(304);
    expect(again.body).toHaveLength(0);
    expect(again.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(again.headers.etag).toBe(first.headers.etag);
    // Another encoding is another body, with a tag of its own.
    const brotli = await rawGet(app, script, {
      'Accept-Encoding': 'br',
      'If-None-Match': first.headers.etag!,
    });
    expect(brotli.status).toBe(200);
    expect(brotli.headers.etag).not.toBe(first.headers.etag);
  });

  it('answers one byte range with 206, of the encoding it sends, and 416 past the end', async () => {
    const plain = await rawGet(app, script, { Range: 'bytes=0-99' });
    expect(plain.status).toBe(206);
    expect(plain.headers['content-range']).toBe(`bytes 0-99/${file(scriptName).length}`);
    expect(plain.body.equals(file(scriptName).subarray(0, 100))).toBe(true);

    const gzip = await rawGet(app, script, { Range: 'bytes=-10', 'Accept-Encoding': 'gzip' });
    const gz = file(`${scriptName}.gz`);
    expect(gzip.status).toBe(206);
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gzip.headers['content-range']).toBe(
      `bytes ${gz.length - 10}-${gz.length - 1}/${gz.length}`,
    );
    expect(gzip.body.equals(gz.subarray(gz.length - 10))).toBe(true);

    const beyond = await rawGet(app, script, { Range: 'bytes=99999999-' });
    expect(beyond.status).toBe(416);
    expect(beyond.headers['content-range']).toBe(`bytes */${file(scriptName).length}`);

    // Several ranges, or a range for a body that changed since (If-Range): the whole file.
    for (const headers of [
      { Range: 'bytes=0-1,5-9' } as Record<string, string>,
      { Range: 'bytes=0-9', 'If-Range': '"not-this-one"' },
    ]) {
      const whole = await rawGet(app, script, headers);
      expect(whole.status).toBe(200);
      expect(whole.body.equals(file(scriptName))).toBe(true);
    }
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const { server, port } = await listen(app);
    try {
      const head = await rawRequest(port, script, { 'Accept-Encoding': 'br' }, 'HEAD');
      const get = await rawRequest(port, script, { 'Accept-Encoding': 'br' }, 'GET');
      expect(head.status).toBe(200);
      expect(head.body).toHaveLength(0);
      expect(head.headers['content-length']).toBe(String(get.body.length));
      expect(head.headers.etag).toBe(get.headers.etag);
    } finally {
      server.close();
    }
  });

  it('ignores a query string, and answers other methods as before (404 under /assets)', async () => {
    const res = await rawGet(app, `${script}?v=1`, {});
    expect(res.status).toBe(200);
    expect(res.body.equals(file(scriptName))).toBe(true);
    expect((await request(app).post(script)).status).toBe(404);
    expect((await request(app).post('/favicon.svg')).status).toBe(405);
  });

  it('compresses the SVGs of public/ once, at start, with a Content-Length', async () => {
    const svg = '/images/google-play-badge.svg';
    const res = await rawGet(app, svg, { 'Accept-Encoding': 'gzip' });
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers['content-length']).toBe(String(res.body.length));
    expect(
      zlib.gunzipSync(res.body).equals(fs.readFileSync(path.join(PUBLIC_DIR, svg.slice(1)))),
    ).toBe(true);
    // A picture is sent as it is, whatever is accepted.
    const png = await rawGet(app, '/images/og-card.png', { 'Accept-Encoding': 'gzip, br' });
    expect(png.headers['content-encoding']).toBeUndefined();
    expect(png.headers.vary).toBeUndefined();
  });
});
