// The performance budget of the built client (first-load JS ≤ 105 KB gzip, CSS ≤ 12 KB), weighed
// as the server sends it, and the precompressed copies it hands out. Which scripts a first load
// fetches is checked against Chromium in test/e2e/first-load.test.ts.
import fs from 'node:fs';
import zlib from 'node:zlib';
import { loadPageAssets } from '../../server/pages/static-files';
import {
  BUDGET,
  builtFile as file,
  firstLoadScripts,
  firstLoadWeights,
} from '../../scripts/weights';

const manifest = loadPageAssets();
const weights = firstLoadWeights(manifest);

describe('client build budget', () => {
  it(`keeps first-load JS within ${BUDGET.firstLoadJsGzip} bytes gzip -9`, () => {
    // React alone is more: the measurement is real
    expect(weights.js.gzip9).toBeGreaterThan(50_000);
    expect(weights.js.gzip9).toBeLessThanOrEqual(BUDGET.firstLoadJsGzip);
  });

  it(`keeps CSS within ${BUDGET.cssGzip} bytes gzip -9`, () => {
    expect(weights.css.gzip9).toBeGreaterThan(0);
    expect(weights.css.gzip9).toBeLessThanOrEqual(BUDGET.cssGzip);
  });

  // new Worker(url) runs a classic script: an import or export there would be a syntax error.
  it('builds each worker as a content-hashed script that imports and exports nothing', () => {
    expect(Object.keys(manifest.workers)).toContain('motion-check');
    for (const url of Object.values(manifest.workers)) {
      expect(url).toMatch(/^\/assets\/[\w-]+-[A-Z0-9]{8}\.js$/);
      expect(fs.readFileSync(file(url), 'utf8')).not.toMatch(/\b(import|export)\b/);
    }
  });

  // The weights above are of these copies, so they must be the real thing.
  it('writes brotli and gzip copies that decode to the original', () => {
    for (const url of [...firstLoadScripts(manifest), ...manifest.styles]) {
      const original = fs.readFileSync(file(url));
      expect(zlib.brotliDecompressSync(fs.readFileSync(`${file(url)}.br`)).equals(original)).toBe(
        true,
      );
      expect(zlib.gunzipSync(fs.readFileSync(`${file(url)}.gz`)).equals(original)).toBe(true);
    }
  });
});
