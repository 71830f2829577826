// Static files: hashed build output cached for a year, public/ briefly; misses are plain 404s;
// everything text-like is compressed.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import request from 'supertest';
import { rawGet } from '../../support/http';
import { createApp } from '../../../server/app';
import { loadPageAssets } from '../../../server/pages/static-files';
import { ASSETS_DIR } from '../../../server/paths';
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
