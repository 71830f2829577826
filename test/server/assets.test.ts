// Static files: hashed build output cached for a year, public/ briefly; misses are plain 404s;
// everything text-like is compressed.
import zlib from 'node:zlib';
import request from 'supertest';
import { rawGet } from '../support/http';
import { createApp } from '../../server/app';
import { loadManifest } from '../../server/assets';
import { testConfig } from '../support/config';

const app = createApp(testConfig());
const manifest = loadManifest();
const script = manifest.scripts[0];
const style = manifest.styles[0];


describe('static assets', () => {
  it('serves hashed scripts and styles immutable for a year', async () => {
    for (const url of [script, style]) {
      const res = await request(app).get(url);
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    }
    expect((await request(app).get(script)).headers['content-type']).toMatch(/javascript/);
    expect((await request(app).get(style)).headers['content-type']).toMatch(/text\/css/);
  });

  it('answers a missing asset with a plain 404, never the HTML page', async () => {
    const res = await request(app).get('/assets/entry-DOESNOTEXIST.js');
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.text).not.toContain('<html');
  });

  it('serves public files with a short max-age', async () => {
    const res = await request(app).get('/robots.txt');
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
