// The performance budget of the built client (first-load JS ≤ 105 KB gzip, CSS ≤ 12 KB), and the
// precompressed copies the server hands out.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { loadManifest } from '../../server/assets';

const CLIENT = path.resolve(__dirname, '../../dist/client');
const manifest = loadManifest();
const file = (url: string) => path.join(CLIENT, url);
const gzip9 = (urls: string[]) => urls.reduce((sum, url) => sum + zlib.gzipSync(fs.readFileSync(file(url)), { level: 9 }).length, 0);

const BUDGET = { firstLoadJsGzip: 105_000, cssGzip: 12_000 };

describe('client build budget', () => {
  it(`keeps first-load JS within ${BUDGET.firstLoadJsGzip} bytes gzip -9`, () => {
    const size = gzip9([...manifest.scripts, ...manifest.preloads]);
    expect(size).toBeGreaterThan(50_000); // React alone is more: the measurement is real
    expect(size).toBeLessThanOrEqual(BUDGET.firstLoadJsGzip);
  });

  it(`keeps CSS within ${BUDGET.cssGzip} bytes gzip -9`, () => {
    expect(gzip9(manifest.styles)).toBeLessThanOrEqual(BUDGET.cssGzip);
  });

  it('writes brotli and gzip copies that decode to the original', () => {
    for (const url of [...manifest.scripts, ...manifest.styles]) {
      const original = fs.readFileSync(file(url));
      expect(zlib.brotliDecompressSync(fs.readFileSync(`${file(url)}.br`)).equals(original)).toBe(true);
      expect(zlib.gunzipSync(fs.readFileSync(`${file(url)}.gz`)).equals(original)).toBe(true);
    }
  });
});
