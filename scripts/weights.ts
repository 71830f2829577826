// What a first visit downloads from the client build, as the server sends it: the raw files
// and their precompressed .gz (level 9) and .br (quality 11) copies. The budget is issue #6's, and
// issue #54's for the Russian pages, whose messages are longer.
import fs from 'node:fs';
import path from 'node:path';
import { loadPageAssets } from '../server/pages/static-files';
import { MANIFEST_PATH } from '../server/paths';
import type { AssetManifest } from '../shared/manifest';
import { DEFAULT_LANGUAGE, type Language } from '../shared/i18n/languages';

export const BUDGET = {
  firstLoadJsGzip: { en: 105_000, ru: 107_000 } satisfies Record<Language, number>,
  cssGzip: 12_000,
} as const;

interface Weight {
  raw: number;
  gzip9: number;
  brotli: number;
}

/** The file behind a manifest URL such as /assets/entry-HASH.js. */
export const builtFile = (url: string) => path.join(path.dirname(MANIFEST_PATH), url);

function weigh(urls: string[]): Weight {
  const size = (file: string) => fs.statSync(file).size;
  return urls.reduce(
    (sum, url) => ({
      raw: sum.raw + size(builtFile(url)),
      gzip9: sum.gzip9 + size(`${builtFile(url)}.gz`),
      brotli: sum.brotli + size(`${builtFile(url)}.br`),
    }),
    { raw: 0, gzip9: 0, brotli: 0 },
  );
}

/**
 * Every script a first load of a page in this language fetches: the entry scripts, the chunks they
 * import, and the worker the document's script starts in idle time (server/pages/document.tsx).
 * Scripts loaded later, on a visitor's action, are not first-load. test/e2e/first-load.test.ts
 * compares this list with what Chromium fetched.
 */
export function firstLoadScripts(
  manifest: AssetManifest,
  language: Language = DEFAULT_LANGUAGE,
): string[] {
  const { scripts, preloads } = manifest.languages[language];
  return [...scripts, ...preloads, manifest.workers['motion-check']];
}

/** First-load JS (every script of firstLoadScripts) and CSS. */
export function firstLoadWeights(
  manifest = loadPageAssets(),
  language: Language = DEFAULT_LANGUAGE,
): { js: Weight; css: Weight } {
  return { js: weigh(firstLoadScripts(manifest, language)), css: weigh(manifest.styles) };
}

/** Each first-load script's own weight, for the bench's per-file lines. */
export function firstLoadFileWeights(
  manifest = loadPageAssets(),
  language: Language = DEFAULT_LANGUAGE,
): [string, Weight][] {
  return firstLoadScripts(manifest, language).map((url) => [url, weigh([url])]);
}
