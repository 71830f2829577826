// Server-rendered pages through the real middleware stack (createApp + supertest).
import { createHash } from 'node:crypto';
import request from 'supertest';
import { loadPageAssets } from '../../../server/pages/static-files';
import { createApp } from '../../../server/app';
import { testConfig } from '../../support/config';
import { listen, rawRequest } from '../../support/http';

const app = createApp(testConfig());

describe('server-rendered pages', () => {
  it.each([
    ['/', 'Join wait list'],
    ['/activate', 'Enter your activation key'],
  ])('GET %s is a complete HTML page before any script runs', async (path, formTitle) => {
    const res = await request(app).get(path);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.text.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(res.text).toContain('<html lang="en">');
    // header, hero and the route's form are all in the server HTML
    expect(res.text).toContain('BETA');
    expect(res.text).toContain('From an org-mode lover to org-mode lovers');
    expect(res.text).toContain(formTitle);
    expect(res.text).toMatch(/<form[^>]*>/);
    expect(res.text).toContain('window.__staticRouterHydrationData');
  });

  it('links the hashed client script and carries the stylesheet inline, allowed by its hash', async () => {
    const { css, preloads } = loadPageAssets();
    for (const path of ['/', '/activate?email=a%40b.co']) {
      const res = await request(app).get(path);
      // Asked for after the first paint, with the chunks it imports, by a small inline script the
      // policy allows: while the document loads, the parser fetches no script.
      expect(res.text).toMatch(/add\('script',\{type:'module',src\}\)/);
      expect(res.text).toMatch(/\["\/assets\/entry-en-[A-Z0-9]+\.js"\]/);
      expect(res.text).toContain(`add('link',{rel:'modulepreload',href})`);
      expect(res.text).toContain(JSON.stringify(preloads));
      expect(res.text).not.toContain('rel="modulepreload"');
      expect(res.text).not.toContain('rel="stylesheet"');
      expect(res.text).toContain(`<style>${css}</style>`);
      const styleSrc = String(res.headers['content-security-policy'])
        .match(/style-src ([^;]+)/)![1]
        .split(' ');
      expect(styleSrc).toContain(`'sha256-${createHash('sha256').update(css).digest('base64')}'`);
      expect(styleSrc).not.toContain("'unsafe-inline'");
    }
  });

  it('answers an unknown path with 404 and the fallback screen, inside the layout', async () => {
    const res = await request(app).get('/no/such/page');
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.text).toContain('Unexpected Application Error!');
    expect(res.text).toContain('404 Not Found');
    expect(res.text).toContain('BETA'); // header still there
  });

  it('gives crawlers the same complete page', async () => {
    const res = await request(app)
      .get('/')
      .set(
        'User-Agent',
        'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      );
    expect(res.status).toBe(200);
    expect(res.text).toContain('Join wait list');
    expect(res.text.trimEnd().endsWith('</html>')).toBe(true);
  });

  it('survives a hostile Host header or path and keeps serving', async () => {
    const { server, port } = await listen(app);
    try {
      for (const [path, host] of [
        ['/', 'a b'],
        ['/activate', '[::1'],
        ['//[/', 'localhost'],
        ['/?email=x', '%%'],
      ]) {
        const res = await rawRequest(port, path, { Host: host });
        expect({ path, host, ok: res.status < 500 }).toEqual({ path, host, ok: true });
      }
      expect((await rawRequest(port, '/healthz')).status).toBe(200);
    } finally {
      server.close();
    }
  });

  it('answers HEAD like GET without a body', async () => {
    const res = await request(app).head('/activate');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
  });

  it('refuses other methods on pages with 405', async () => {
    const res = await request(app).delete('/');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD');
  });

  it('embeds only the public config, escaped for a script element', async () => {
    const evil = createApp(
      testConfig({ WEB_APP_URL: 'https://example.org/</script><script>alert(1)</script>' }),
    );
    const res = await request(evil).get('/');
    const embedded = res.text.match(
      /<script id="public-config" type="application\/json">(.*?)<\/script>/,
    )?.[1];
    expect(embedded).toBeDefined();
    expect(embedded).not.toContain('</script>');
    expect(JSON.parse(embedded!)).toEqual({
      webAppUrl: 'https://example.org/</script><script>alert(1)</script>',
      privacyContact: 'OrgNote <no-reply@localhost>',
      confirmSignups: false,
      proofOfWork: false,
      backupRetentionDays: 7,
      addressRecipients: { names: [], unnamed: 0 },
      languages: ['en', 'ru'],
    });
  });
});
