// The server HTML of each page, as a visitor without JavaScript (or a crawler) gets it.
import request from 'supertest';
import { createApp } from '../../../server/app';
import { testConfig } from '../../support/config';

const app = createApp(testConfig({ WEB_APP_URL: 'https://app.example.com' }));
const withSite = createApp(testConfig({ SITE_URL: 'https://orgnote.example/' }));

/** The attributes of the input called `name` in the HTML. */
function input(html: string, name: string): string {
  const match = html.match(new RegExp(`<(?:input|textarea)[^>]*name="${name}"[^>]*>`));
  if (!match) throw new Error(`no field named ${name}`);
  return match[0];
}

describe('page HTML', () => {
  it('GET / has the waitlist form with empty fields, email autofocused', async () => {
    const { text } = await request(app).get('/');
    expect(text).toContain('<title>Join the waitlist · OrgNote</title>');
    expect(text).toContain('Join wait list');
    expect(text).toContain('About me (or github profile)');
    expect(input(text, 'email')).toContain('autofocus');
    expect(input(text, 'email')).toContain('value=""');
    expect(input(text, 'description')).not.toContain('autofocus');
    expect(text).toMatch(
      /<form[^>]*method="post"[^>]*enctype="multipart\/form-data"|<form[^>]*encType="multipart\/form-data"[^>]*method="post"/i,
    );
  });

  it('GET /?email= prefills the email and autofocuses the description', async () => {
    const { text } = await request(app).get('/?email=zo%C3%AB%40example.org');
    expect(input(text, 'email')).toContain('value="zoë@example.org"');
    expect(input(text, 'email')).not.toContain('autofocus');
    expect(input(text, 'description')).toContain('autofocus');
  });

  it('GET /activate has the activation form: a POST to our /activate/open in a new tab', async () => {
    const { text } = await request(app).get('/activate');
    expect(text).toContain('<title>Activate your subscription · OrgNote</title>');
    expect(text).toContain('Enter your activation key');
    expect(text).toMatch(
      /<form[^>]*action="\/activate\/open"[^>]*method="post"[^>]*target="_blank"/,
    );
    expect(input(text, 'email')).toContain('autofocus');
    expect(input(text, 'token')).not.toContain('autofocus');
  });

  it('GET /activate?email= prefills the email and autofocuses the key', async () => {
    const { text } = await request(app).get('/activate?email=a%40b.co');
    expect(input(text, 'email')).toContain('value="a@b.co"');
    expect(input(text, 'token')).toContain('autofocus');
  });

  it('escapes a hostile ?email= instead of injecting it', async () => {
    const { text } = await request(app).get('/?email=%22%3E%3Cscript%3Ealert(1)%3C%2Fscript%3E');
    expect(text).not.toContain('<script>alert(1)</script>');
    expect(input(text, 'email')).toContain(
      'value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"',
    );
  });

  it('has the document head: lang, description, canonical, Open Graph, Twitter, favicon, theme-color', async () => {
    const { text } = await request(withSite).get('/activate?email=a%40b.co');
    expect(text).toContain('<html lang="en">');
    expect(text).toMatch(/<meta name="description" content="[^"]+"/);
    expect(text).toContain('<link rel="canonical" href="https://orgnote.example/activate"/>');
    expect(text).toContain('<meta property="og:url" content="https://orgnote.example/activate"/>');
    expect(text).toContain(
      '<meta property="og:image" content="https://orgnote.example/images/og-card.png"/>',
    );
    expect(text).toMatch(/<meta property="og:title" content="[^"]+"/);
    expect(text).toContain('<meta name="twitter:card" content="summary_large_image"/>');
    expect(text).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml"/>');
    expect(text).toMatch(/<meta name="theme-color" content="#[0-9a-f]{6}"/);
    expect(text).not.toContain('a%40b.co"/>'); // the query never reaches canonical links
  });

  it('serves robots.txt and sitemap.xml naming the site', async () => {
    const robots = await request(withSite).get('/robots.txt');
    expect(robots.status).toBe(200);
    expect(robots.text).toContain('Sitemap: https://orgnote.example/sitemap.xml');
    const sitemap = await request(withSite).get('/sitemap.xml');
    expect(sitemap.headers['content-type']).toMatch(/^application\/xml/);
    expect(sitemap.text).toContain('<loc>https://orgnote.example/</loc>');
    expect(sitemap.text).toContain('<loc>https://orgnote.example/activate</loc>');
  });

  it('serves every image the pages reference', async () => {
    const { text } = await request(app).get('/');
    // Every URL of src and href, and each candidate of a srcset ("url 2x, url 1x").
    const urls = [...text.matchAll(/\b(?:src|srcSet|href)="([^"]+)"/g)].flatMap((m) =>
      m[1].split(',').map((candidate) => candidate.trim().split(/\s+/)[0]),
    );
    const images = new Set(
      urls.filter((url) => url.startsWith('/images/') || url === '/favicon.svg'),
    );
    expect(images.size).toBeGreaterThanOrEqual(6);
    for (const src of images) {
      const res = await request(app).get(src);
      expect({ src, status: res.status, type: res.headers['content-type'] }).toEqual({
        src,
        status: 200,
        type: expect.stringMatching(/^image\//),
      });
    }
  });
});
