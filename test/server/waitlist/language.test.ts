// A signup's language through the doors of the signup operation: the API in its three encodings
// and the plain form record it in the embedded store (English when absent or empty) and refuse a
// language the site does not serve, storing nothing; a repeat from the other language's page sets
// it anew without a second welcome. With BACKEND_URL, the field reaches a real multer backend as
// sent and the site keeps nothing.
import request from 'supertest';
import { createApp } from '../../../server/app';
import { openSqliteStore, type Store } from '../../../server/store';
import { testConfig } from '../../support/config';
import { outboxSites } from '../../support/outbox-site';
import { CATALOGS } from '../../../shared/messages';
import { encodings, formPost } from '../../support/signup-encodings';

const { site, backendOn } = outboxSites();

const opened: Store[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

function embedded(env: Record<string, string> = {}) {
  const config = testConfig(env);
  const store = openSqliteStore(config);
  opened.push(store);
  return { app: createApp(config, { store }), store };
}

const languagesOf = async (store: Store) =>
  (await store.signups.list()).map((row) => [row.email, row.language]);

describe.each(Object.keys(encodings))('POST /api/subscriptions, %s', (encoding) => {
  const post = encodings[encoding];

  it('records the language sent, and English when it is absent or empty', async () => {
    const { app, store } = embedded();
    expect((await post(app, { email: 'ann@example.org', language: 'ru' })).status).toBe(201);
    expect((await post(app, { email: 'bob@example.org', language: '' })).status).toBe(201);
    expect((await post(app, { email: 'cid@example.org' })).status).toBe(201);
    expect(await languagesOf(store)).toEqual([
      ['cid@example.org', 'en'],
      ['bob@example.org', 'en'],
      ['ann@example.org', 'ru'],
    ]);
  });

  it('refuses a language that is not one of the site’s with 400 JSON in English, storing nothing', async () => {
    const { app, store } = embedded();
    for (const language of ['de', 'RU', 'ru ', '../en']) {
      const res = await post(app, { email: 'ann@example.org', language });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: 'Language must be one of: en, ru',
        field: 'language',
        code: 'language-unknown',
      });
    }
    expect(await store.signups.count()).toBe(0);
  });
});

describe('the language of a signup in the embedded store', () => {
  // A page cached before Russian was turned off still posts 'ru': the signup is not lost, and its
  // mail goes out in English (test/server/mail/languages.test.ts).
  it('takes and records a language LANGUAGES turned off', async () => {
    const { app, store } = embedded({ LANGUAGES: 'en' });
    const res = await encodings.JSON(app, { email: 'ann@example.org', language: 'ru' });
    expect(res.status).toBe(201);
    expect(await languagesOf(store)).toEqual([['ann@example.org', 'ru']]);
  });

  it('refuses a repeated language field (JSON: not text) with 400', async () => {
    const { app, store } = embedded();
    const repeated = await request(app)
      .post('/api/subscriptions')
      .field('email', 'ann@example.org')
      .field('language', 'en')
      .field('language', 'ru');
    expect(repeated.status).toBe(400);
    const json = await request(app)
      .post('/api/subscriptions')
      .send({ email: 'ann@example.org', language: ['ru'] });
    expect(json.status).toBe(400);
    expect(json.body).toMatchObject({ field: 'language' });
    expect(await store.signups.count()).toBe(0);
  });

  it('a repeat from the other page changes the language, and is mailed no second welcome', async () => {
    const { app, store } = embedded({
      SITE_URL: 'https://orgnote.example',
      WELCOME_MAIL: 'on',
      MAIL_TO_FILES: 'on',
    });
    await encodings.JSON(app, { email: 'Ann@example.org', description: 'hi', language: 'ru' });
    expect(await store.signups.welcomesDue()).toBe(1);
    const repeat = await encodings.JSON(app, { email: 'ann@example.org', language: 'en' });
    expect(repeat.status).toBe(201);
    expect(await store.signups.welcomesDue()).toBe(1);
    expect(await store.signups.list()).toEqual([
      expect.objectContaining({ email: 'Ann@example.org', description: 'hi', language: 'en' }),
    ]);
  });
});

describe('the plain form records its hidden language field', () => {
  it('records it as the API does, and a repeat from the other page sets it anew', async () => {
    const { app, store } = embedded();
    const res = await formPost(app, {
      email: 'ann@example.org',
      description: 'me',
      language: 'ru',
    });
    expect(res.status).toBe(303);
    await formPost(app, { email: 'bob@example.org', description: 'me' });
    expect(await languagesOf(store)).toEqual([
      ['bob@example.org', 'en'],
      ['ann@example.org', 'ru'],
    ]);
    await formPost(app, { email: 'ANN@example.org', description: 'me', language: 'en' });
    expect(await languagesOf(store)).toEqual([
      ['bob@example.org', 'en'],
      ['ann@example.org', 'en'],
    ]);
  });

  it('shows the form again with 400 and the reason for an unknown language, storing nothing', async () => {
    const { app, store } = embedded();
    const res = await formPost(app, {
      email: 'ann@example.org',
      description: 'about <me>',
      language: 'de',
    });
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.text).toContain(CATALOGS.en.forms.languageUnknown_);
    expect(res.text).toMatch(/<input[^>]*name="email"[^>]*value="ann@example.org"/);
    expect(res.text).toContain('about &lt;me&gt;</textarea>');
    expect(await store.signups.count()).toBe(0);
  });

  it("shows the address's own problem first when both are wrong", async () => {
    const { app } = embedded();
    const res = await formPost(app, { email: '', description: 'x', language: 'de' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('Email address is required');
    expect(res.text).not.toContain('Language must be one of');
  });
});

describe('with BACKEND_URL the backend owns the language', () => {
  it('the API forwards the field as sent, even one this site does not serve, and keeps nothing', async () => {
    const backend = await backendOn();
    const { app, store } = site(backend.port);
    for (const language of ['ru', 'de'])
      expect((await encodings.multipart(app, { email: 'ann@example.org', language })).status).toBe(
        201,
      );
    await encodings.JSON(app, { email: 'bob@example.org' });
    expect(backend.received.map((r) => r.fields)).toEqual([
      { email: 'ann@example.org', description: '', language: 'ru' },
      { email: 'ann@example.org', description: '', language: 'de' },
      { email: 'bob@example.org', description: '' },
    ]);
    expect(await store.signups.count()).toBe(0);
    expect(await store.outbox.depth()).toBe(0);
  });

  it('the plain form forwards its hidden field unchanged, and keeps nothing', async () => {
    const backend = await backendOn();
    const { app, store } = site(backend.port);
    const res = await formPost(app, {
      email: 'ann@example.org',
      description: 'me',
      language: 'ru',
    });
    expect(res.status).toBe(303);
    expect(backend.received.map((r) => [r.url, r.fields])).toEqual([
      ['/api/subscriptions', { email: 'ann@example.org', description: 'me', language: 'ru' }],
    ]);
    expect(await store.signups.count()).toBe(0);
    expect(await store.outbox.depth()).toBe(0);
  });
});
