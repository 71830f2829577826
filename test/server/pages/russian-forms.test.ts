// The forms without JavaScript under /ru/: the waitlist form that comes back, its refusals and the
// form error page are Russian, with lang="ru" and Content-Language: ru; the API stays English.
import request from 'supertest';
import { createApp } from '../../../server/app';
import { openSqliteStore } from '../../../server/store';
import { testConfig } from '../../support/config';
import { stopClockInOneRateWindow } from '../../support/rate-window';

function site(env: Record<string, string> = {}) {
  const config = testConfig(env);
  const store = openSqliteStore(config);
  return { app: createApp(config, { store }), store };
}

describe('the waitlist form without JavaScript, in Russian', () => {
  it('comes back from /ru/?index with the Russian messages, in a Russian page', async () => {
    const { app, store } = site();
    const res = await request(app)
      .post('/ru/?index')
      .field('email', '')
      .field('description', '')
      .field('language', 'ru');
    expect(res.status).toBe(400);
    expect(res.text).toContain('<html lang="ru"');
    expect(res.headers['content-language']).toBe('ru');
    expect(res.text).toContain('>Укажите адрес электронной почты</p>');
    expect(res.text).toContain('>Заполните это поле</p>');
    expect(res.text).not.toContain('Email address is required');
    expect(res.text).toContain('<title>Запись в лист ожидания · OrgNote</title>');
    expect(await store.signups.count()).toBe(0);
  });

  it('says a refused domain and an over-long description in Russian', async () => {
    const { app } = site({ ALLOWED_EMAIL_DOMAINS: 'example.org,bücher.de' });
    const refused = await request(app)
      .post('/ru/?index')
      .field('email', 'a@example.net')
      .field('description', 'me')
      .field('language', 'ru');
    expect(refused.status).toBe(400);
    expect(refused.text).toContain(
      'Записаться можно только с адресом на домене example.org или bücher.de',
    );
    const long = await request(app)
      .post('/ru/?index')
      .field('email', 'a@example.org')
      .field('description', 'x'.repeat(2001))
      .field('language', 'ru');
    expect(long.text).toContain('В поле «О себе» можно написать не больше 2000\u00a0символов');
  });

  it('leaves the API English, with a code for a page to word', async () => {
    const { app } = site({ ALLOWED_EMAIL_DOMAINS: 'example.org' });
    const res = await request(app)
      .post('/api/subscriptions')
      .field('email', 'a@example.net')
      .field('language', 'ru');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'Only addresses at example.org can join',
      field: 'email',
      code: 'domain-not-allowed',
      domains: ['example.org'],
    });
  });
});

describe('the form error page in Russian', () => {
  beforeEach(stopClockInOneRateWindow);
  afterEach(() => {
    jest.useRealTimers();
  });

  it('answers a rate-limited /ru/ form with a Russian 429 page, JSON staying English', async () => {
    const { app } = site({ SIGNUP_RATE_LIMIT: '1' });
    const post = () =>
      request(app)
        .post('/ru/?index')
        .set('X-Forwarded-For', '203.0.113.9')
        .set('Accept', 'text/html');
    await post().field('email', 'a@b.co').field('description', 'me');
    const page = await post().field('email', 'c@d.co').field('description', 'me');
    expect(page.status).toBe(429);
    expect(page.headers['content-language']).toBe('ru');
    expect(page.text).toContain('<html lang="ru">');
    expect(page.text).toContain('<title>Не удалось отправить форму · OrgNote</title>');
    expect(page.text).toContain('<h1>Не удалось отправить форму</h1>');
    expect(page.text).toContain('<p>Слишком много попыток. Попробуйте ещё раз через минуту.</p>');
    expect(page.text).toContain('<a href="/ru/">Вернуться к листу ожидания</a>');

    const json = await request(app)
      .post('/ru/?index')
      .set('X-Forwarded-For', '203.0.113.9')
      .field('email', 'c@d.co');
    expect(json.body).toEqual({ error: 'Too many submissions; please try again in a minute' });
  });

  it('answers a cross-site post to /ru/ in Russian', async () => {
    const { app } = site();
    const res = await request(app)
      .post('/ru/?index')
      .set('Origin', 'https://elsewhere.example')
      .set('Accept', 'text/html')
      .field('email', 'a@b.co');
    expect(res.status).toBe(403);
    expect(res.text).toContain('<p>Формы, отправленные с других сайтов, не принимаются.</p>');
  });
});
