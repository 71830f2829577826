// A person's own data over HTTP, through the real parts: /privacy's native form answers every
// address alike, the mail worker mails a listed one its link through a real SMTP server on
// 127.0.0.1 (read back with mailparser, in the person's language), the link's page downloads
// nothing on GET, and its button's POST downloads the file once, within a day, audited without
// the address. Time past the day is the store's clock, moved by the test.
import request from 'supertest';
import { createApp } from '../../../server/app';
import type { Config } from '../../../server/config';
import { openSqliteStore } from '../../../server/store';
import type { SqliteStore } from '../../../server/store/sqlite';
import { startWorkers, type Workers } from '../../../server/workers';
import {
  headerValue,
  startSmtpServer,
  type ReceivedMail,
  type SmtpTestServer,
} from '../../../scripts/lib/launch/smtp';
import { capturingLogger, testConfig } from '../../support/config';
import { stopClockInOneRateWindow } from '../../support/rate-window';

const SITE_URL = 'https://orgnote.example';
const DAY = 24 * 3_600_000;

let smtp: SmtpTestServer;
beforeAll(async () => {
  smtp = await startSmtpServer();
});
afterAll(() => smtp.close());

let config: Config;
let store: SqliteStore;
let workers: Workers;
let app: ReturnType<typeof createApp>;
let lines: string[];
/** How far the store's clock is ahead of the real one. */
let ahead: number;
beforeEach(() => {
  smtp.received.length = 0;
  ahead = 0;
  config = testConfig({ SITE_URL, SMTP_URL: smtp.url, SIGNUP_RATE_LIMIT: '3' });
  store = openSqliteStore(config, () => Date.now() + ahead);
  const logged = capturingLogger();
  lines = logged.lines;
  // Never saturated: the machine's load is not what this file tests.
  workers = startWorkers({
    config,
    store,
    logger: logged.logger,
    pollMs: 60_000,
    busy: () => false,
  });
  app = createApp(config, { store, logger: logged.logger, wakeMail: workers.wakeMail });
});
afterEach(async () => {
  await workers.stop(1_000);
  await store.close();
});

const ask = (email: string, prefix = '') =>
  request(app).post(`${prefix}/privacy`).type('form').send({ email });
const download = (token: string, prefix = '') =>
  request(app).post(`${prefix}/privacy/data`).type('form').send({ token });

/** The data link in a received mail: the page, and the token in its fragment. */
function linkOf(mail: ReceivedMail): { page: string; token: string } {
  const [, page, token] = /(https:\/\/\S+\/privacy\/data)#([A-Za-z0-9_-]{32})/.exec(
    mail.parsed.text ?? '',
  )!;
  return { page, token };
}

/** The same document but for the per-request nonce. */
const normal = (html: string) =>
  html.replace(/nonce="[^"]+"/g, 'nonce=""').replace(/'nonce-[^']+'/g, '');

describe('/privacy’s data request form', () => {
  beforeEach(stopClockInOneRateWindow);
  afterEach(() => jest.useRealTimers());

  it('answers a listed and an unlisted address with the same page and status, and mails the listed one only', async () => {
    await store.signups.add({ email: 'ann@example.org', description: 'emacs' });
    const listed = await ask('ann@example.org');
    const unlisted = await ask('nobody@example.org');
    expect(listed.status).toBe(200);
    expect(unlisted.status).toBe(200);
    expect(normal(unlisted.text)).toBe(normal(listed.text));
    expect(listed.text).toContain(
      'If this address is on the waitlist, we have sent it a link to download its data. ' +
        'The link works once, for 24 hours.',
    );
    // The answer names no address.
    expect(listed.text).not.toContain('ann@example.org');

    const [mail] = await smtp.waitFor(1);
    await workers.flush();
    expect(smtp.received).toHaveLength(1);
    expect(mail.envelope.to).toEqual(['ann@example.org']);
    expect(mail.parsed.subject).toBe('What the OrgNote waitlist holds about you');
    const { page, token } = linkOf(mail);
    expect(page).toBe(`${SITE_URL}/privacy/data`);
    // The token also stands alone, for a page without JavaScript to ask for.
    expect(mail.parsed.text).toContain(
      `If the page asks you for a code, enter this one:\n\n${token}`,
    );
    expect(headerValue(mail.raw, 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    expect(headerValue(mail.raw, 'list-unsubscribe')).toMatch(
      /^<https:\/\/orgnote\.example\/leave\?token=[A-Za-z0-9_-]{32}>$/,
    );
    // Nothing logged names the address or the token.
    expect(lines.join('\n')).not.toMatch(/ann@example|nobody@example/);
    expect(lines.join('\n')).not.toContain(token);
  });

  it('shows the form again with the error for a missing or malformed address, and is limited and same-site like /leave’s', async () => {
    const missing = await ask('');
    expect(missing.status).toBe(400);
    expect(missing.text).toContain('Email address is required');
    const malformed = await ask('not-an-address');
    expect(malformed.status).toBe(400);
    expect(malformed.text).toContain('value="not-an-address"');
    expect(malformed.text).toContain('action="/privacy#data-request"');
    // SIGNUP_RATE_LIMIT=3 per minute per client: the fourth is refused.
    expect((await ask('a@example.org')).status).toBe(200);
    const fourth = await ask('a@example.org');
    expect(fourth.status).toBe(429);
    expect(fourth.headers['retry-after']).toBeDefined();
    const crossSite = await request(app)
      .post('/privacy')
      .set('Origin', 'https://evil.example')
      .type('form')
      .send({ email: 'a@example.org' });
    expect(crossSite.status).toBe(403);
  });

  it('asks in Russian at /ru/privacy, with the errors in Russian', async () => {
    const page = await ask('', '/ru');
    expect(page.status).toBe(400);
    expect(page.text).toMatch(/<html lang="ru"/);
    expect(page.text).toContain('Укажите адрес электронной почты');
    expect(page.text).toContain('action="/ru/privacy#data-request"');
    const sent = await ask('boris@example.org', '/ru');
    expect(sent.status).toBe(200);
    expect(sent.text).toContain('Ссылка сработает один раз в течение 24\u00a0часов.');
  });
});

describe('the data link', () => {
  /** A listed address asks, and the link its mail brings. */
  async function linkFor(email: string, language: 'en' | 'ru' = 'en') {
    await store.signups.add({ email, description: 'org-mode fan', language });
    expect((await ask(email, language === 'ru' ? '/ru' : '')).status).toBe(200);
    const [mail] = await smtp.waitFor(1);
    return { mail, ...linkOf(mail) };
  }

  it('opens a page that downloads nothing; its button downloads the file once, audited without the address', async () => {
    const { mail, token } = await linkFor('Cid@Example.org');

    // What a mail scanner fetches: the page, the same for everyone, spending nothing.
    const page = await request(app).get('/privacy/data');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-disposition']).toBeUndefined();
    expect(page.text).toContain(
      '<h1 id="address-title" class="form-title">Download your data</h1>',
    );
    expect(page.text).toMatch(/<form action="\/privacy\/data" method="post">/);
    expect(page.text).toContain('name="token"');
    expect(page.text).not.toContain(token);

    const file = await download(token);
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(file.headers['content-disposition']).toMatch(
      /^attachment; filename="orgnote-data-\d{4}-\d{2}-\d{2}\.json"$/,
    );
    expect(file.headers['cache-control']).toBe('no-store');
    const held = JSON.parse(file.text) as {
      site: string;
      signup: Record<string, unknown>;
      mail: { kind: string; subject: string; state: string }[];
      webhooks: unknown[];
    };
    expect(held.site).toBe(SITE_URL);
    expect(held.signup).toMatchObject({
      email: 'Cid@Example.org',
      description: 'org-mode fan',
      language: 'en',
      state: 'waitlisted',
    });
    expect(held.signup).not.toHaveProperty('email_key');
    expect(held.mail).toEqual([
      expect.objectContaining({ kind: 'data-link', subject: mail.parsed.subject, state: 'sent' }),
    ]);
    expect(held.webhooks).toEqual([]);

    const again = await download(token);
    expect(again.status).toBe(410);
    expect(again.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(again.text).toContain('This link has been used already');
    expect(again.text).toContain('href="/privacy#data-request"');

    const [entry, ...others] = await store.audit.list({ limit: 10 });
    expect(others).toEqual([]);
    expect(entry).toMatchObject({
      account: '(mailed link)',
      action: 'data download',
      addresses: 1,
    });
    expect(JSON.stringify(entry).toLowerCase()).not.toContain('cid@example.org');
    expect(lines.join('\n')).not.toContain(token);
  });

  it('is refused after its day with a 410 page in Russian, and a malformed or unknown code gets a 4xx page', async () => {
    const { mail, page, token } = await linkFor('dina@example.org', 'ru');
    expect(page).toBe(`${SITE_URL}/ru/privacy/data`);
    expect(mail.parsed.subject).toBe('Что лист ожидания OrgNote хранит о вас');
    expect(mail.parsed.text).toContain('Ссылка действует 24\u00a0часа и сработает один раз.');

    ahead = DAY;
    const expired = await download(token, '/ru');
    expect(expired.status).toBe(410);
    expect(expired.text).toMatch(/<html lang="ru"/);
    expect(expired.text).toContain('Срок действия ссылки истёк');
    expect(expired.text).toContain('href="/ru/privacy#data-request"');

    const malformed = await download('not a token');
    expect(malformed.status).toBe(400);
    expect(malformed.text).toContain('This code is incomplete');
    expect((await download('A'.repeat(32))).status).toBe(404);
    // From another site: refused before the body is read.
    const crossSite = await request(app)
      .post('/privacy/data')
      .set('Origin', 'https://evil.example')
      .type('form')
      .send({ token });
    expect(crossSite.status).toBe(403);
    expect(await store.audit.list({ limit: 10 })).toEqual([]);
  });
});
