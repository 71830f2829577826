// The two languages as crawlers and link previews see them: each indexed page in English and in
// Russian names its own language (lang, Content-Language, og:locale), links its other-language
// twin (hreflang alternates, the header's link), is canonical in its own language and is
// prerendered like the English page. With LANGUAGES=en there is no Russian anywhere.
import { JSDOM } from 'jsdom';
import request from 'supertest';
import { createApp } from '../../../server/app';
import { testConfig } from '../../support/config';

const SITE = 'https://orgnote.example';
const app = createApp(testConfig({ SITE_URL: `${SITE}/` }));
const englishOnly = createApp(testConfig({ SITE_URL: `${SITE}/`, LANGUAGES: 'en' }));

/** Each indexed page as [English path, Russian path]. */
const PAGES = [
  ['/', '/ru/'],
  ['/activate', '/ru/activate'],
  ['/privacy', '/ru/privacy'],
] as const;

/** Every indexed page with its language and its twin in the other language. */
const EACH = PAGES.flatMap(([en, ru]) => [
  { path: en, language: 'en', og: 'en_US', other: ru, otherOg: 'ru_RU', en, ru },
  { path: ru, language: 'ru', og: 'ru_RU', other: en, otherOg: 'en_US', en, ru },
]);

const parse = (html: string) => new JSDOM(html).window.document;

/** The page's head as a crawler reads it: hreflang → href, og:locale and its alternates. */
function headOf(document: Document) {
  const meta = (property: string) =>
    [...document.querySelectorAll(`meta[property="${property}"]`)].map((m) =>
      m.getAttribute('content'),
    );
  return {
    lang: document.documentElement.getAttribute('lang'),
    canonical: document.querySelector('link[rel="canonical"]')?.getAttribute('href'),
    alternates: Object.fromEntries(
      [...document.querySelectorAll('link[rel="alternate"][hreflang]')].map((link) => [
        link.getAttribute('hreflang'),
        link.getAttribute('href'),
      ]),
    ),
    ogLocale: meta('og:locale'),
    ogLocaleAlternate: meta('og:locale:alternate'),
    ogUrl: meta('og:url'),
  };
}

describe.each(EACH)('$path', ({ path, language, og, other, otherOg, en, ru }) => {
  it(`names its language (${language}) in <html lang>, Content-Language and og:locale`, async () => {
    const res = await request(app).get(path);
    expect(res.status).toBe(200);
    expect(res.headers['content-language']).toBe(language);
    expect(headOf(parse(res.text))).toEqual({
      lang: language,
      canonical: `${SITE}${path}`,
      alternates: {
        en: `${SITE}${en}`,
        ru: `${SITE}${ru}`,
        'x-default': `${SITE}${en}`,
      },
      ogLocale: [og],
      ogLocaleAlternate: [otherOg],
      ogUrl: [`${SITE}${path}`],
    });
  });

  it('links the same page in the other language from its header, the query kept', async () => {
    const res = await request(app).get(`${path}?email=zoe%40example.org`);
    const links = [...parse(res.text).querySelectorAll('header a.language-link')];
    expect(
      links.map((link) => ({
        href: link.getAttribute('href'),
        hreflang: link.getAttribute('hreflang'),
        lang: link.getAttribute('lang'),
        text: link.textContent,
      })),
    ).toEqual([
      {
        href: `${other}?email=zoe%40example.org`,
        hreflang: language === 'en' ? 'ru' : 'en',
        lang: language === 'en' ? 'ru' : 'en',
        // Each language is named in itself, so a reader of the other one recognises it.
        text: language === 'en' ? 'Русский' : 'English',
      },
    ]);
  });

  it('is prerendered: the same ETag twice, cached as the English page is', async () => {
    const first = await request(app).get(path);
    const second = await request(app).get(path);
    const twin = await request(app).get(other);
    expect(first.headers.etag).toMatch(/^"/);
    expect(second.headers.etag).toBe(first.headers.etag);
    expect(first.headers['cache-control']).toBe(twin.headers['cache-control']);
    // Each language's page is kept as its own: never the twin's bytes under this address.
    expect(first.headers.etag).not.toBe(twin.headers.etag);
  });
});

describe('sitemap.xml', () => {
  it('lists the 6 pages, each with its en, ru and x-default alternates', async () => {
    const res = await request(app).get('/sitemap.xml');
    expect(res.status).toBe(200);
    const xml = new JSDOM(res.text, { contentType: 'application/xml' }).window.document;
    const urls = [...xml.getElementsByTagName('url')].map((url) => ({
      loc: url.getElementsByTagName('loc')[0]?.textContent,
      alternates: [...url.getElementsByTagName('xhtml:link')].map(
        (link) => `${link.getAttribute('hreflang')} ${link.getAttribute('href')}`,
      ),
    }));
    const byLoc = (a: { loc?: string | null }, b: { loc?: string | null }) =>
      String(a.loc).localeCompare(String(b.loc));
    expect(urls.sort(byLoc)).toEqual(
      EACH.map(({ path, en, ru }) => ({
        loc: `${SITE}${path}`,
        alternates: [`en ${SITE}${en}`, `ru ${SITE}${ru}`, `x-default ${SITE}${en}`],
      })).sort(byLoc),
    );
  });
});

describe('/ru', () => {
  it('sends a bare /ru to /ru/ for good', async () => {
    const res = await request(app).get('/ru');
    expect(res.status).toBe(301);
    expect(res.headers.location).toBe('/ru/');
  });
});

describe('LANGUAGES=en', () => {
  it.each(['/ru/', '/ru/privacy'])('answers %s with 404', async (path) => {
    expect((await request(englishOnly).get(path)).status).toBe(404);
  });

  it.each(PAGES.map(([en]) => en))(
    'serves %s without a language link or a Russian alternate',
    async (path) => {
      const res = await request(englishOnly).get(path);
      expect(res.status).toBe(200);
      const document = parse(res.text);
      expect(document.querySelectorAll('.language-link')).toHaveLength(0);
      const head = headOf(document);
      expect(head.alternates).not.toHaveProperty('ru');
      expect(head.ogLocaleAlternate).toEqual([]);
      expect(res.text).not.toContain('/ru/');
    },
  );

  it('leaves /ru/ out of the sitemap', async () => {
    const res = await request(englishOnly).get('/sitemap.xml');
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('/ru');
    expect(res.text.match(/<url>/g)).toHaveLength(3);
  });
});
