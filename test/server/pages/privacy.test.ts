// '/privacy' as a visitor without JavaScript, a crawler or a cache sees it.
import request from 'supertest';
import { createApp } from '../../../server/app';
import { testConfig } from '../../support/config';

describe('the privacy notice', () => {
  it('is a server-rendered page with the contact from PRIVACY_CONTACT and a link to /leave', async () => {
    const app = createApp(
      testConfig({
        PRIVACY_CONTACT: 'Privacy desk <privacy@orgnote.example>',
        MAIL_FROM: 'invites@orgnote.example',
      }),
    );
    const res = await request(app).get('/privacy');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.text).toContain('<title>Privacy · OrgNote</title>');
    expect(res.text).toMatch(/<h1 id="privacy-title">Privacy<\/h1>/);
    expect(res.text).toContain(
      '<a href="mailto:privacy@orgnote.example">privacy@orgnote.example</a>',
    );
    expect(res.text).not.toContain('invites@orgnote.example');
    expect(res.text).toMatch(/<a href="\/leave"[^>]*>Leave the waitlist<\/a>/);
    // What is stored, why, how long and who sees it, readable in the HTML itself.
    for (const phrase of [
      'e-mail address',
      'About me (or github profile)',
      'an invitation with an activation key',
      'Until you leave',
      'no tracking',
    ]) {
      expect(res.text).toContain(phrase);
    }
  });

  it('names MAIL_FROM when PRIVACY_CONTACT is unset', async () => {
    const app = createApp(testConfig({ MAIL_FROM: 'OrgNote <hello@orgnote.example>' }));
    const { text } = await request(app).get('/privacy');
    expect(text).toContain('<a href="mailto:hello@orgnote.example">hello@orgnote.example</a>');
  });

  it('is cached like the other shared pages, and a variant of it renders per request', async () => {
    const app = createApp(testConfig({ SITE_URL: 'https://orgnote.example' }));
    const shared = await request(app).get('/privacy');
    expect(shared.headers['cache-control']).toBe('public, max-age=0, s-maxage=300');
    expect(shared.headers.etag).toBeDefined();
    expect(shared.headers['content-security-policy']).toContain("script-src 'self' 'sha256-");
    const perRequest = await request(app).get('/privacy?from=footer');
    expect(perRequest.status).toBe(200);
    expect(perRequest.headers['cache-control']).toBe('private, no-store');
    expect(perRequest.text).toContain('<h1 id="privacy-title">Privacy</h1>');
  });

  it('is in the sitemap', async () => {
    const app = createApp(testConfig({ SITE_URL: 'https://orgnote.example/' }));
    const sitemap = await request(app).get('/sitemap.xml');
    expect(sitemap.text).toContain('<loc>https://orgnote.example/privacy</loc>');
  });

  it('is linked beside both forms, with and without JavaScript', async () => {
    const app = createApp(testConfig());
    for (const path of ['/', '/activate', '/?joined']) {
      const { text } = await request(app).get(path);
      expect({ path, linked: /<a href="\/privacy"[^>]*>Privacy<\/a>/.test(text) }).toEqual({
        path,
        linked: true,
      });
    }
  });

  it('leaves unknown paths a 404', async () => {
    const app = createApp(testConfig());
    expect((await request(app).get('/privacy/more')).status).toBe(404);
    expect((await request(app).get('/privac')).status).toBe(404);
  });
});

describe('the privacy notice in Russian', () => {
  it('is served at /ru/privacy in Russian, linking to /ru/leave', async () => {
    const app = createApp(testConfig({ PRIVACY_CONTACT: 'privacy@orgnote.example' }));
    const res = await request(app).get('/ru/privacy');
    expect(res.status).toBe(200);
    expect(res.headers['content-language']).toBe('ru');
    expect(res.text).toMatch(/<html lang="ru"/);
    expect(res.text).toContain('<title>Конфиденциальность · OrgNote</title>');
    expect(res.text).toMatch(/<h1 id="privacy-title">Конфиденциальность<\/h1>/);
    expect(res.text).toMatch(/<a href="\/ru\/leave"[^>]*>Выйти из листа ожидания<\/a>/);
    expect(res.text).toContain('Только администраторы сайта.');
    for (const english of ['What is stored', 'Who sees it', 'Leave the waitlist', 'no tracking'])
      expect({ english, shown: res.text.includes(english) }).toEqual({ english, shown: false });
  });
});
