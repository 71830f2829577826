// A first load of /ru/, as Chromium fetched it against the production server: the Russian entry
// and its chunks only (dist/client/manifest.json `languages.ru`), never the English entry and no
// script carrying the English catalog's texts; and the Russian text as UTF-8, not as '\u04…'
// escapes, which would weigh six bytes a letter before compression (esbuild's charset: 'utf8').
import fs from 'node:fs';
import { loadPageAssets } from '../../server/pages/static-files';
import { builtFile } from '../../scripts/weights';
import { CATALOGS } from '../../shared/messages';
import { until } from '../support/wait';
import { hydrated, startSite, VIEWPORTS, type Site } from '../support/site';

let site: Site;
beforeAll(async () => {
  site = await startSite();
});
afterAll(() => site?.close());

/** Every string of a catalog tree (its messages that are functions left out). */
function strings(tree: unknown): string[] {
  if (typeof tree === 'string') return [tree];
  if (typeof tree !== 'object' || tree === null) return [];
  return Object.values(tree).flatMap(strings);
}

/**
 * Code every page runs whatever its language, which holds some of the catalog's English words
 * itself: React Router's own error screen ('Unexpected Application Error!', which the spec's
 * mirrors) and the API client's errors of docs/product.md §8 ('Request aborted').
 */
const LANGUAGE_FREE_CODE = [
  require.resolve('react-router').replace(/development[\\/].*$/, 'production/'),
  require.resolve('../../shared/api.ts'),
].flatMap((source) =>
  fs.statSync(source).isDirectory()
    ? fs
        .readdirSync(source, { withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => fs.readFileSync(`${source}${entry.name}`, 'utf8'))
    : [fs.readFileSync(source, 'utf8')],
);

/**
 * The English catalog's phrases no Russian message shares, and no language-free code holds: one
 * of them in a Russian page's script is the English catalog shipped to Russian readers. Phrases
 * only (a space, 8 characters or more): a single word such as a name may be in any script for
 * another reason.
 */
const ENGLISH_ONLY = (() => {
  const russian = new Set(strings(CATALOGS.ru));
  return strings(CATALOGS.en).filter(
    (text) =>
      !russian.has(text) &&
      text.includes(' ') &&
      text.length >= 8 &&
      !LANGUAGE_FREE_CODE.some((code) => code.includes(text)),
  );
})();

describe.each(VIEWPORTS)('a first load of /ru/ at $width px', ({ width, height }) => {
  it("fetches the Russian entry and its chunks only, with no English catalog and no '\\u04' escape", async () => {
    const { page, context, problems } = await site.open({
      width,
      height,
      reducedMotion: 'no-preference',
    });
    const fetched = new Set<string>();
    page.on('response', (response) => {
      if (['script', 'worker'].includes(response.request().resourceType()))
        fetched.add(new URL(response.url()).pathname);
    });
    const workers: string[] = [];
    const motionChecked = new Promise<void>((resolve) =>
      page.on('worker', (worker) => {
        workers.push(new URL(worker.url()).pathname);
        worker.once('close', () => resolve());
      }),
    );

    await page.goto(site.url('/ru/'));
    await hydrated(page);
    await until('the motion-check worker has started', () => workers.length > 0, 10_000);
    await motionChecked;
    await until('its script has arrived', () => fetched.has(workers[0]), 5_000);

    const assets = loadPageAssets();
    const { scripts, preloads } = assets.languages.ru;
    expect([...fetched].sort()).toEqual(
      [...scripts, ...preloads, assets.workers['motion-check']].sort(),
    );
    const englishEntries = assets.languages.en.scripts.filter((url) => !scripts.includes(url));
    expect(englishEntries.length).toBeGreaterThan(0);
    expect([...fetched].filter((url) => englishEntries.includes(url))).toEqual([]);
    expect(ENGLISH_ONLY.length).toBeGreaterThan(0);
    for (const url of fetched) {
      const code = fs.readFileSync(builtFile(url), 'utf8');
      expect({ url, english: ENGLISH_ONLY.filter((text) => code.includes(text)) }).toEqual({
        url,
        english: [],
      });
      expect({ url, escapes: code.match(/\\u04[0-9a-f]{2}/gi) ?? [] }).toEqual({
        url,
        escapes: [],
      });
    }
    // The Russian entry carries the Russian catalog, as UTF-8.
    const entry = fs.readFileSync(builtFile(scripts[0]), 'utf8');
    expect(entry).toContain(CATALOGS.ru.site.skipToContent_);
    expect(problems).toEqual([]);
    await context.close();
  });
});
