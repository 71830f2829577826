// The performance budget of the built client (first-load JS ≤ 105 KB gzip in English, 107 KB in
// Russian; CSS ≤ 12 KB), weighed
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
import { LANGUAGES, type Language } from '../../shared/i18n/languages';
import { CATALOGS } from '../../shared/messages';

const manifest = loadPageAssets();
const weights = firstLoadWeights(manifest);

/** Every text of a language's catalog (the strings; a function's words are in its source). */
function catalogTexts(language: Language): string[] {
  const texts: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === 'string') texts.push(value);
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(CATALOGS[language]);
  return texts;
}

/**
 * Texts of the catalog that code every page runs holds itself, whatever the language: React
 * Router's own error screen ('Unexpected Application Error!', which the spec's mirrors) and the API
 * client's errors (docs/product.md §8).
 */
const LIBRARIES = [
  fs.readFileSync(require.resolve('../../shared/api.ts'), 'utf8'),
  fs.readFileSync(
    require.resolve('react-router').replace(/development[\\/].*$/, 'production/chunk-7RTFRKQW.mjs'),
    'utf8',
  ),
];
const inLibraries = (text: string) => LIBRARIES.some((code) => code.includes(text));

/** The text of every script a first load of the language's pages runs, and their lazy chunks. */
function scriptsOf(language: Language): string {
  const scripts = firstLoadScripts(manifest, language);
  const lazy = (source: string) =>
    [...source.matchAll(/import\("\.\/(chunk-[A-Z0-9]+\.js)"\)/g)].map(([, chunk]) => chunk);
  const seen = new Set(scripts);
  const texts = scripts.map((url) => fs.readFileSync(file(url), 'utf8'));
  for (const text of texts)
    for (const chunk of lazy(text)) {
      const url = `/assets/${chunk}`;
      if (seen.has(url)) continue;
      seen.add(url);
      texts.push(fs.readFileSync(file(url), 'utf8'));
    }
  return texts.join('\n');
}

describe('client build budget', () => {
  it.each(LANGUAGES)(
    'keeps first-load JS of the %s pages within its budget, gzip -9',
    (language) => {
      const { js } = firstLoadWeights(manifest, language);
      // React alone is more: the measurement is real
      expect(js.gzip9).toBeGreaterThan(50_000);
      expect(js.gzip9).toBeLessThanOrEqual(BUDGET.firstLoadJsGzip[language]);
    },
  );

  it.each(LANGUAGES)(
    "ships the %s pages their own language's messages only, written as UTF-8",
    (language) => {
      const scripts = scriptsOf(language);
      const other = LANGUAGES.find((each) => each !== language)!;
      const ours = new Set(catalogTexts(language));
      // Phrases only: a name or a word may be the same in both, or in a library.
      const theirs = catalogTexts(other).filter(
        (text) => / /.test(text) && text.length > 12 && !ours.has(text) && !inLibraries(text),
      );
      expect(scripts).toContain(CATALOGS[language].site.skipToContent_);
      expect(theirs.filter((text) => scripts.includes(text))).toEqual([]);
      expect(scripts).not.toMatch(/\\u04[0-9a-f]{2}/i);
    },
  );

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
