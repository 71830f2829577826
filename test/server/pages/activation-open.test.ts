// The activation form without JavaScript (server/pages/activation-open.ts): GET /activate/open
// answers 303 to the web app's /auth/activate with email, token and key, the URL the script opens,
// keeps the key out of caches, Referer headers and the log, and sends a browser that typed
// something wrong back to /activate.
import request from 'supertest';
import { createApp } from '../../../server/app';
import { securityHeaders } from '../../../server/http/security-headers';
import { openSqliteStore, type Store } from '../../../server/store';
import { capturingLogger, testConfig } from '../../support/config';
import { until } from '../../support/wait';
import { CATALOGS } from '../../../shared/messages';

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

const opened: Store[] = [];
afterEach(() => {
  for (const store of opened.splice(0)) void store.close();
});

function site(deps: Parameters<typeof createApp>[1] = {}) {
  const config = testConfig({ WEB_APP_URL: 'https://app.example.com/' });
  const store = openSqliteStore(config);
  opened.push(store);
  return { config, app: createApp(config, { store, ...deps }) };
}

/**
 * Expects the 303 to the web app for ' zoë+1@example.org ' and the key 'k&y=1 2': the address
 * trimmed, the key as both token and key, nothing cached, no Referer sent on.
 */
function expectOpened(res: request.Response): void {
  expect(res.status).toBe(303);
  expect(Object.fromEntries(new URL(res.headers.location).searchParams)).toEqual({
    email: 'zoë+1@example.org',
    token: 'k&y=1 2',
    key: 'k&y=1 2',
  });
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.headers['referrer-policy']).toBe('no-referrer');
}

describe('GET /activate/open', () => {
  it('redirects with 303 to the web app with email, token and key, never cached, sending no Referer on', async () => {
    const { app } = site();
    const res = await request(app)
      .get('/activate/open')
      .query({ email: ' zoë+1@example.org ', token: 'k&y=1 2' });
    expectOpened(res);
    const location = new URL(res.headers.location);
    expect(`${location.origin}${location.pathname}`).toBe('https://app.example.com/auth/activate');
  });

  it('keeps every other security header the request pipeline sets, and answers HEAD alike', async () => {
    const { app, config } = site();
    for (const method of ['get', 'head'] as const) {
      const res = await request(app)[method]('/activate/open?email=a%40b.co&token=KEY');
      expect({ method, status: res.status, location: res.headers.location }).toEqual({
        method,
        status: 303,
        location: 'https://app.example.com/auth/activate?email=a%40b.co&token=KEY&key=KEY',
      });
      for (const [name, value] of securityHeaders(config).fixed) {
        if (name !== 'Referrer-Policy')
          expect({ name, value: res.headers[name.toLowerCase()] }).toEqual({ name, value });
      }
    }
  });

  it.each([
    ['no email', '?token=KEY', 'Email address is required', '/activate'],
    [
      'an invalid email',
      '?email=not+an+email&token=KEY',
      'Email address is invalid',
      '/activate?email=not+an+email',
    ],
    [
      'an empty key',
      '?email=a%40b.co&token=',
      'Activation key: Required',
      '/activate?email=a%40b.co',
    ],
    ['no key at all', '?email=a%40b.co', 'Activation key: Required', '/activate?email=a%40b.co'],
    [
      'a key of spaces',
      '?email=a%40b.co&token=+++',
      'Activation key: Required',
      '/activate?email=a%40b.co',
    ],
  ])(
    'shows a browser that sent %s a 400 page leading back to the form',
    async (_case, query, message, back) => {
      const { app } = site();
      const res = await request(app).get(`/activate/open${query}`).set('Accept', BROWSER);
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers.location).toBeUndefined();
      expect(res.headers['cache-control']).toBe('private, no-store');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.text).toContain(`<p>${message}</p>`);
      expect(res.text).toContain(
        `<a href="${back.replace(/&/g, '&amp;')}">Back to the activation form</a>`,
      );
      expect(res.text).not.toContain('Back to the waitlist');
    },
  );

  it('escapes what was typed in the way back', async () => {
    const { app } = site();
    const res = await request(app)
      .get('/activate/open')
      .query({ email: '"><script>x</script>', token: '' })
      .set('Accept', BROWSER);
    expect(res.status).toBe(400);
    expect(res.text).not.toContain('<script>');
    expect(res.text).toContain('<a href="/activate?email=%22%3E%3Cscript%3Ex%3C%2Fscript%3E">');
  });

  it('answers a script or an API client with JSON {"error"}', async () => {
    const { app } = site();
    const res = await request(app)
      .get('/activate/open?email=a%40b.co&token=')
      .set('Accept', 'application/json');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Activation key: Required' });
    expect(res.headers['cache-control']).toBe('no-store');
    const bare = await request(app).get('/activate/open?token=KEY');
    expect(bare.status).toBe(400);
    expect(bare.body).toEqual({ error: 'Email address is required' });
  });

  it("answers the form's POST the same way, so the key stays out of the URL our proxies log", async () => {
    const { app } = site();
    const res = await request(app)
      .post('/activate/open')
      .type('form')
      .send({ email: ' zoë+1@example.org ', token: 'k&y=1 2' });
    expectOpened(res);
    const bad = await request(app)
      .post('/activate/open')
      .type('form')
      .send({ email: 'a@b.co', token: '' })
      .set('Accept', BROWSER);
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Activation key: Required');
  });

  it('refuses a POST from another site with 403, as every form of ours does', async () => {
    const { app } = site();
    const res = await request(app)
      .post('/activate/open')
      .set('Origin', 'https://evil.example')
      .type('form')
      .send({ email: 'a@b.co', token: 'KEY' });
    expect(res.status).toBe(403);
    expect(res.headers.location).toBeUndefined();
  });

  it('refuses other methods with 405 and Allow: GET, HEAD', async () => {
    const { app } = site();
    for (const method of ['put', 'delete'] as const) {
      const res = await request(app)[method]('/activate/open?email=a%40b.co&token=KEY');
      expect({
        method,
        status: res.status,
        allow: res.headers.allow,
        location: res.headers.location,
      }).toEqual({
        method,
        status: 405,
        allow: 'GET, HEAD',
        location: undefined,
      });
    }
  });

  it('logs the path only: no email and no key reach the log', async () => {
    const { logger, lines } = capturingLogger();
    const { app } = site({ logger });
    const ok = await request(app)
      .get('/activate/open')
      .query({ email: 'alice@example.org', token: 'SECRET-KEY-1' });
    const bad = await request(app)
      .get('/activate/open')
      .query({ email: 'bob@example.org', token: '' })
      .set('Accept', BROWSER);
    expect([ok.status, bad.status]).toEqual([303, 400]);

    const accessLines = () =>
      lines.map((line) => JSON.parse(line)).filter((entry) => entry.msg === 'request completed');
    await until('both requests are logged', () => accessLines().length >= 2);
    expect(accessLines().map((entry) => [entry.req.path, entry.res.status])).toEqual([
      ['/activate/open', 303],
      ['/activate/open', 400],
    ]);
    const log = lines.join('\n');
    for (const secret of ['alice', 'bob', 'example.org', 'SECRET', 'token='])
      expect({ secret, logged: log.includes(secret) }).toEqual({ secret, logged: false });
  });
});

describe('/ru/activate/open', () => {
  it.each([
    ['no email', '?token=KEY', 'Укажите адрес электронной почты', '/ru/activate'],
    [
      'an invalid email',
      '?email=not+an+email&token=KEY',
      'Это не похоже на адрес электронной почты',
      '/ru/activate?email=not+an+email',
    ],
    [
      'two emails',
      '?email=a%40b.co&email=c%40d.co&token=KEY',
      'Укажите один адрес электронной почты',
      '/ru/activate',
    ],
    [
      'an email too long',
      `?email=${'a'.repeat(250)}%40b.co&token=KEY`,
      'Адрес электронной почты не может быть длиннее 254\u00a0символов',
      `/ru/activate?email=${'a'.repeat(250)}%40b.co`,
    ],
    ['no key', '?email=a%40b.co&token=+', 'Укажите ключ активации', '/ru/activate?email=a%40b.co'],
    [
      'a key too long',
      `?email=a%40b.co&token=${'k'.repeat(201)}`,
      'Неверный ключ активации',
      '/ru/activate?email=a%40b.co',
    ],
  ])(
    'shows a browser that sent %s a 400 page in Russian leading back to the Russian form',
    async (_case, query, message, back) => {
      const { app } = site();
      const res = await request(app).get(`/ru/activate/open${query}`).set('Accept', BROWSER);
      expect(res.status).toBe(400);
      expect(res.headers['content-language']).toBe('ru');
      expect(res.text).toContain(`<p>${message}</p>`);
      expect(res.text).toContain(`<a href="${back}">Вернуться к форме активации</a>`);
    },
  );

  it('answers the Russian form’s POST with the same 303, and its refusal in Russian', async () => {
    const { app } = site();
    const res = await request(app)
      .post('/ru/activate/open')
      .type('form')
      .send({ email: ' zoë+1@example.org ', token: 'k&y=1 2' });
    expectOpened(res);
    const bad = await request(app)
      .post('/ru/activate/open')
      .type('form')
      .send({ email: 'a@b.co', token: '' })
      .set('Accept', BROWSER);
    expect(bad.status).toBe(400);
    expect(bad.headers['content-language']).toBe('ru');
    expect(bad.text).toContain('<p>Укажите ключ активации</p>');
    expect(bad.text).not.toContain('Activation key');
  });

  it('says the longest address with the number’s own form (Intl.PluralRules)', () => {
    const tooLong = CATALOGS.ru.activate.emailTooLong_;
    expect([1, 21, 2, 5, 254].map(tooLong)).toEqual(
      [
        '1\u00a0символа',
        '21\u00a0символа',
        '2\u00a0символов',
        '5\u00a0символов',
        '254\u00a0символов',
      ].map((count) => `Адрес электронной почты не может быть длиннее ${count}`),
    );
  });

  it('words the English page in English, with its language said', async () => {
    const { app } = site();
    const res = await request(app).get('/activate/open?email=a%40b.co').set('Accept', BROWSER);
    expect(res.headers['content-language']).toBe('en');
    expect(res.text).toContain('<p>Activation key: Required</p>');
  });
});
