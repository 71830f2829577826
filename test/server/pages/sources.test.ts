// Where a visitor came from, as the pages carry it without JavaScript: a page rendered for one
// request (a query string) finds utm_source, utm_medium and utm_campaign in its query and another
// site's host in its Referer, renders them as the plain form's hidden fields and into the site's
// own links, so a landing on any page takes them to the form. The pages kept for everyone stay
// what they were: the same bytes and headers whatever Referer came with the request.
import { JSDOM } from 'jsdom';
import request from 'supertest';
import { createApp } from '../../../server/app';
import { testConfig } from '../../support/config';

const SITE = 'https://orgnote.example';
const app = createApp(testConfig({ SITE_URL: SITE }));

const page = async (path: string, referer?: string) => {
  const req = request(app).get(path);
  const res = await (referer ? req.set('Referer', referer) : req);
  expect(res.status).toBe(200);
  return { res, document: new JSDOM(res.text).window.document };
};

/** The plain form's hidden source fields, by name. */
const hiddenSource = (document: Document) =>
  Object.fromEntries(
    [...document.querySelectorAll<HTMLInputElement>('form.waitlist-form input[type=hidden]')]
      .filter((input) => /^(utm_source|utm_medium|utm_campaign|referrer)$/.test(input.name))
      .map((input) => [input.name, input.value]),
  );

/** Where the header's links, the menu's and the landing's privacy link lead. */
const ownLinks = (document: Document) =>
  Object.fromEntries(
    [
      ['brand', 'header a.brand'],
      ['menu waitlist', '.menu-dropdown li:nth-child(1) a'],
      ['menu activate', '.menu-dropdown li:nth-child(2) a'],
      ['other language', 'header a.language-link'],
      ['privacy', '.hero-form .form-note a[href*="privacy"]'],
    ].map(([name, selector]) => [name, document.querySelector(selector)?.getAttribute('href')]),
  );

const HN = 'https://news.ycombinator.com/item?id=42#comments';

describe("the plain form's hidden fields", () => {
  it("carry the landing's utm_* and another site's host, bounded, and nothing else", async () => {
    const long = 'c'.repeat(80);
    const { document } = await page(
      `/?utm_source=hn&utm_medium=social&utm_campaign=${long}&utm_term=x&ref=y`,
      HN,
    );
    expect(hiddenSource(document)).toEqual({
      utm_source: 'hn',
      utm_medium: 'social',
      utm_campaign: 'c'.repeat(64),
      referrer: 'news.ycombinator.com',
    });
    // The Referer's page and query are nowhere in the page.
    expect(document.documentElement.outerHTML).not.toContain('item?id=42');
  });

  it('take nothing from our own pages, and carry a referrer our own link brought', async () => {
    expect(hiddenSource((await page('/?utm_medium=mail', `${SITE}/privacy`)).document)).toEqual({
      utm_medium: 'mail',
    });
    expect(
      hiddenSource((await page('/?referrer=lobste.rs', `${SITE}/privacy?referrer=x`)).document),
    ).toEqual({ referrer: 'lobste.rs' });
    // A page for one request with neither: no hidden source field at all.
    expect(hiddenSource((await page('/?joined=1')).document)).toEqual({});
  });

  it('are on the Russian form too, with its language field', async () => {
    const { document } = await page('/ru/?utm_source=vk', 'https://vk.com/wall-1');
    expect(hiddenSource(document)).toEqual({ utm_source: 'vk', referrer: 'vk.com' });
    expect(document.querySelector<HTMLInputElement>('input[name=language]')?.value).toBe('ru');
    // '/ru?…', where the Russian pages' links to the form lead, is the same form.
    expect(hiddenSource((await page('/ru?utm_campaign=y')).document)).toEqual({
      utm_campaign: 'y',
    });
  });

  it('hold a hostile value as text, escaped', async () => {
    const hostile = '"><script>alert(1)</script>';
    const { res, document } = await page(`/?utm_campaign=${encodeURIComponent(hostile)}`);
    expect(hiddenSource(document)).toEqual({ utm_campaign: hostile });
    expect(res.text).not.toContain('<script>alert(1)');
  });
});

describe("the site's own links on a page for one request", () => {
  it('carry the source from any page to the form, the language link too', async () => {
    const { document } = await page('/privacy?utm_source=hn&utm_campaign=launch', HN);
    const carried = 'utm_source=hn&utm_campaign=launch&referrer=news.ycombinator.com';
    expect(ownLinks(document)).toEqual({
      brand: `/?${carried}`,
      'menu waitlist': `/?${carried}`,
      'menu activate': `/activate?${carried}`,
      'other language': `/ru/privacy?${carried}`,
      privacy: undefined,
    });
  });

  it('on a Russian page lead to Russian pages, the source kept', async () => {
    const { document } = await page('/ru/activate?utm_campaign=y&email=a%40b.co');
    expect(ownLinks(document)).toEqual({
      // React Router's way of writing the home under '/ru', which answers as '/ru/' does.
      brand: '/ru?utm_campaign=y',
      'menu waitlist': '/ru?utm_campaign=y',
      'menu activate': '/ru/activate?utm_campaign=y',
      // The page's own query stays, the source set in it.
      'other language': '/activate?utm_campaign=y&email=a%40b.co',
      privacy: '/ru/privacy?utm_campaign=y',
    });
  });

  it('hand the browser the source in the hydration data, for the script to keep', async () => {
    const { res } = await page('/activate?utm_source=hn');
    expect(res.text).toContain('\\"loaderData\\":{\\"root\\":{\\"utm_source\\":\\"hn\\"}');
  });
});

describe('the pages kept for everyone', () => {
  it.each(['/', '/activate', '/privacy', '/ru/'])(
    '%s is the same bytes and headers whatever Referer came, and carries no source',
    async (path) => {
      const plain = await page(path);
      const referred = await page(path, HN);
      for (const header of ['etag', 'cache-control', 'content-security-policy'])
        expect(referred.res.headers[header]).toBe(plain.res.headers[header]);
      expect(plain.res.headers['cache-control']).toBe('public, max-age=0, s-maxage=300');
      expect(referred.res.text).toBe(plain.res.text);
      expect(hiddenSource(referred.document)).toEqual({});
      expect(referred.res.text).not.toContain('news.ycombinator.com');
      // No loader data of the root route: nothing of one request in a page for everyone.
      expect(referred.res.text).not.toContain('\\"root\\"');
    },
  );
});
