// The address pages over HTTP, as a mail program, a mail provider's one-click POST and
// a browser without JavaScript use them: GET shows and changes nothing, only the POST acts, a bad
// or used token gets a 4xx page and changes nothing, and /leave answers the same for any address.
import path from 'node:path';
import Database from 'better-sqlite3';
import request from 'supertest';
import { createApp } from '../../../server/app';
import type { Config } from '../../../server/config';
import { openSqliteStore } from '../../../server/store';
import type { ConfirmationTokens } from '../../../server/store/address-links';
import type { OutgoingMail } from '../../../server/store/mail-queue';
import type { SqliteStore } from '../../../server/store/sqlite';
import { capturingLogger, testConfig } from '../../support/config';
import { stopClockInOneRateWindow } from '../../support/rate-window';

const SITE_URL = 'https://orgnote.example';

let config: Config;
let store: SqliteStore;
let app: ReturnType<typeof createApp>;
beforeEach(() => {
  config = testConfig({
    SITE_URL,
    CONFIRM_SIGNUPS: 'on',
    MAIL_TO_FILES: 'on',
    SIGNUP_RATE_LIMIT: '3',
  });
  store = openSqliteStore(config);
  app = createApp(config, { store });
});
afterEach(() => store.close());

/**
 * Signs an address up unconfirmed and returns the tokens its confirmation mail carried, valid for
 * `validMs`.
 */
async function unconfirmed(email: string, validMs = 3_600_000): Promise<ConfirmationTokens> {
  let tokens: ConfirmationTokens | undefined;
  await store.signups.add({ email, description: 'about me' }, { confirm: true });
  // What the mail worker does next: write the confirmation mail the signup owes.
  await store.addressLinks.mailConfirmations(10, {
    validMs,
    canMail: () => true,
    compose(to, given): OutgoingMail {
      tokens = given;
      return {
        from: 'no-reply@orgnote.example',
        to,
        subject: 's',
        text: '',
        html: '',
        messageId: '<m@x>',
        date: new Date().toISOString(),
      };
    },
  });
  return tokens!;
}

const oneClick = (token: string) =>
  request(app).post(`/leave?token=${token}`).type('form').send('List-Unsubscribe=One-Click');

describe('/confirm', () => {
  it('shows a button on GET (a link scanner confirms nothing), confirms on its POST, and refuses the used link', async () => {
    const { confirm } = await unconfirmed('ann@example.org');
    const page = await request(app).get(`/confirm?token=${confirm}`);
    expect(page.status).toBe(200);
    expect(page.headers['cache-control']).toBe('private, no-store');
    expect(page.text).toMatch(/<form action="\/confirm" method="post">/);
    expect(page.text).toContain(`value="${confirm}"`);
    expect(
      await request(app)
        .head(`/confirm?token=${confirm}`)
        .then((r) => r.status),
    ).toBe(200);
    expect(await store.subscriptions.stateOf('ann@example.org')).toBe('unconfirmed');

    const done = await request(app).post('/confirm').type('form').send({ token: confirm });
    expect(done.status).toBe(200);
    expect(await store.subscriptions.stateOf('ann@example.org')).toBe('waitlisted');
    const again = await request(app).post('/confirm').type('form').send({ token: confirm });
    expect(again.status).toBe(410);
    expect((await request(app).get(`/confirm?token=${confirm}`)).status).toBe(410);
  });

  it('answers a missing, malformed, altered or leave token with a 4xx page, changing nothing', async () => {
    const { confirm, leave } = await unconfirmed('bob@example.org');
    const altered = `${confirm.slice(0, -1)}${confirm.endsWith('A') ? 'B' : 'A'}`;
    const cases: [string, number][] = [
      ['/confirm', 400],
      ['/confirm?token=', 400],
      ['/confirm?token=%3Cscript%3E', 400],
      [`/confirm?token=${altered}`, 404],
      [`/confirm?token=${leave}`, 404],
    ];
    for (const [path, status] of cases) {
      const res = await request(app).get(path);
      expect([path, res.status, res.headers['content-type']]).toEqual([
        path,
        status,
        'text/html; charset=utf-8',
      ]);
      expect(res.text).not.toContain('<script>');
      expect(
        (
          await request(app)
            .post('/confirm')
            .type('form')
            .send({ token: path.split('=')[1] ?? '' })
        ).status,
      ).toBe(status);
    }
    expect(await store.subscriptions.stateOf('bob@example.org')).toBe('unconfirmed');
    // Not a form at all: the body reader's 4xx, before anything runs.
    expect(
      (
        await request(app)
          .post('/confirm')
          .set('Content-Type', 'application/json')
          .send('{"token":')
      ).status,
    ).toBe(400);
    // From another site: refused before the body is read.
    expect(
      (
        await request(app)
          .post('/confirm')
          .set('Origin', 'https://evil.example')
          .type('form')
          .send({ token: confirm })
      ).status,
    ).toBe(403);
    expect(await store.subscriptions.stateOf('bob@example.org')).toBe('unconfirmed');
  });
});

describe("the browser's 'subscribed' flag", () => {
  it('is cleared (Clear-Site-Data) by leaving and by an expired confirmation link, and only then', async () => {
    const { leave } = await unconfirmed('cid@example.org');
    expect(
      (await request(app).get(`/leave?token=${leave}`)).headers['clear-site-data'],
    ).toBeUndefined();
    expect(
      (await request(app).post(`/leave?token=${leave}`).type('form').send('')).headers[
        'clear-site-data'
      ],
    ).toBeUndefined();
    const left = await oneClick(leave);
    expect(left.status).toBe(200);
    expect(left.headers['clear-site-data']).toBe('"storage"');

    // A confirmation token that ran out: "Join the waitlist again", and / shows the form to do it.
    const { confirm: expired } = await unconfirmed('late@example.org', 1);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const page = await request(app).get(`/confirm?token=${expired}`);
    expect(page.status).toBe(410);
    expect(page.headers['clear-site-data']).toBe('"storage"');
    expect(
      (await request(app).get(`/confirm?token=${'A'.repeat(32)}`)).headers['clear-site-data'],
    ).toBeUndefined();
  });
});

describe('/leave with a token', () => {
  it('erases on the one-click POST (urlencoded or multipart, from any origin), and only then', async () => {
    const { leave } = await unconfirmed('cid@example.org');
    await store.signups.add({ email: 'stays@example.org', description: '' });
    const page = await request(app).get(`/leave?token=${leave}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`value="${leave}"`);
    expect(page.text).toContain('name="List-Unsubscribe" value="One-Click"');
    // Without the RFC 8058 body it is not a one-click POST.
    expect((await request(app).post(`/leave?token=${leave}`).type('form').send('')).status).toBe(
      400,
    );
    expect(await store.signups.count()).toBe(2);

    // A mail provider posts from its own servers; a webmail page may post with its own Origin.
    const res = await request(app)
      .post(`/leave?token=${leave}`)
      .set('Origin', 'https://mail.example')
      .field('List-Unsubscribe', 'One-Click');
    expect(res.status).toBe(200);
    expect((await store.signups.list()).map((r) => r.email)).toEqual(['stays@example.org']);
    expect((await oneClick(leave)).status).toBe(404);
    expect((await request(app).get(`/leave?token=${leave}`)).status).toBe(404);
  });

  it('refuses a confirmation token, a malformed one and an altered one, erasing nothing', async () => {
    const { confirm, leave } = await unconfirmed('dan@example.org');
    expect((await oneClick(confirm)).status).toBe(404);
    expect((await oneClick('nope')).status).toBe(400);
    expect((await oneClick(`${leave.slice(1)}x`)).status).toBe(404);
    expect(await store.signups.count()).toBe(1);
  });
});

describe('/leave without a token', () => {
  // Its requests in one of the counters' fixed windows (rate-window.ts).
  beforeEach(stopClockInOneRateWindow);
  afterEach(() => jest.useRealTimers());
  it('answers the same page and status whether or not the address is on the list', async () => {
    await store.signups.add({ email: 'eve@example.org', description: '' });
    const on = await request(app).post('/leave').type('form').send({ email: 'eve@example.org' });
    const off = await request(app)
      .post('/leave')
      .type('form')
      .send({ email: 'nobody@example.org' });
    expect(on.status).toBe(200);
    expect(off.status).toBe(on.status);
    // The same document but for the per-request nonce.
    const normal = (html: string) =>
      html.replace(/nonce="[^"]+"/g, 'nonce=""').replace(/'nonce-[^']+'/g, '');
    expect(normal(off.text)).toBe(normal(on.text));
    // The mail worker writes the link after the answer: a mail for the address on the list only.
    expect(await store.mail.counts()).toMatchObject({ queued: 0 });
    const written = await store.addressLinks.mailLeaveLinks(10, (to, token) => ({
      from: 'no-reply@orgnote.example',
      to,
      subject: 's',
      text: token,
      html: '',
      messageId: '<l@x>',
      date: new Date().toISOString(),
    }));
    expect(written.mail.map((m) => m.message.to)).toEqual(['eve@example.org']);
  });

  it('shows the form again with the error for a missing or malformed address, and is limited like a signup', async () => {
    const missing = await request(app).post('/leave').type('form').send({ email: '' });
    expect(missing.status).toBe(400);
    expect(missing.text).toContain('Email address is required');
    const malformed = await request(app)
      .post('/leave')
      .type('form')
      .send({ email: 'not-an-address' });
    expect(malformed.status).toBe(400);
    expect(malformed.text).toContain('value="not-an-address"');
    // SIGNUP_RATE_LIMIT=3 per minute per client: the fourth is refused.
    expect(
      (await request(app).post('/leave').type('form').send({ email: 'a@example.org' })).status,
    ).toBe(200);
    const fourth = await request(app).post('/leave').type('form').send({ email: 'a@example.org' });
    expect(fourth.status).toBe(429);
    expect(fourth.headers['retry-after']).toBeDefined();
    expect(
      (
        await request(app)
          .post('/leave')
          .set('Origin', 'https://evil.example')
          .type('form')
          .send({ email: 'a@example.org' })
      ).status,
    ).toBe(403);
  });
});

describe('the address pages in Russian', () => {
  it('confirms at /ru/confirm, in Russian, with its form posting there', async () => {
    const { confirm } = await unconfirmed('ann@example.org');
    const page = await request(app).get(`/ru/confirm?token=${confirm}`);
    expect(page.status).toBe(200);
    expect(page.headers['content-language']).toBe('ru');
    expect(page.text).toMatch(/<html lang="ru"/);
    expect(page.text).toContain('<title>Подтверждение адреса · OrgNote</title>');
    expect(page.text).toMatch(/<form action="\/ru\/confirm" method="post">/);
    const done = await request(app).post('/ru/confirm').type('form').send({ token: confirm });
    expect(done.status).toBe(200);
    expect(done.text).toContain('Адрес подтверждён');
    expect(await store.subscriptions.stateOf('ann@example.org')).toBe('waitlisted');
    const again = await request(app).get(`/ru/confirm?token=${confirm}`);
    expect(again.status).toBe(410);
    expect(again.text).toContain('Эта ссылка уже использована: ваш адрес подтверждён.');
  });

  it('leaves by link at /ru/leave, in Russian', async () => {
    const { leave } = await unconfirmed('bob@example.org');
    const page = await request(app).get(`/ru/leave?token=${leave}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('При выходе будут удалены:');
    expect(page.text).toContain(`action="/ru/leave?token=${leave}"`);
    const left = await request(app)
      .post(`/ru/leave?token=${leave}`)
      .type('form')
      .send('List-Unsubscribe=One-Click');
    expect(left.status).toBe(200);
    expect(left.text).toContain('Вы вышли из листа ожидания');
    expect(await store.subscriptions.stateOf('bob@example.org')).toBeUndefined();
  });

  it('asks for a leave link at /ru/leave and refuses a missing address in Russian', async () => {
    const form = await request(app).get('/ru/leave');
    expect(form.text).toMatch(/<form action="\/ru\/leave" method="post">/);
    const missing = await request(app).post('/ru/leave').type('form').send({ email: '' });
    expect(missing.status).toBe(400);
    expect(missing.text).toContain('Укажите адрес электронной почты');
    const malformed = await request(app).post('/ru/leave').type('form').send({ email: 'nope' });
    expect(malformed.status).toBe(400);
    expect(malformed.text).toContain('Это не похоже на адрес электронной почты');
    const asked = await request(app).post('/ru/leave').type('form').send({ email: 'a@b.co' });
    expect(asked.status).toBe(200);
    expect(asked.text).toContain('Проверьте почту');
  });
});

describe('a failure of ours behind a page', () => {
  it("answers 500 with the fallback screen, never the failure's own message, and logs where it came from without them", async () => {
    const { confirm } = await unconfirmed('ann@example.org');
    const { logger, lines } = capturingLogger();
    const logged = createApp(config, { store, logger });
    // A real failure of the store: its table gone under the running site.
    const db = new Database(path.join(config.dataDir, 'waitlist.db'));
    db.exec('DROP TABLE address_tokens');
    db.close();

    const res = await request(logged).get(`/confirm?token=${confirm}`);
    expect(res.status).toBe(500);
    expect(res.text).toContain('Unexpected Application Error!');
    expect(res.text).toContain('Internal Server Error');
    expect(res.text).not.toContain('address_tokens');
    const failed = lines
      .map((line) => JSON.parse(line))
      .filter((line) => line.msg === 'route failed');
    expect(failed).toEqual([
      expect.objectContaining({
        level: 50,
        routeId: expect.any(String),
        failure: expect.objectContaining({ name: 'SqliteError' }),
      }),
    ]);
    expect(JSON.stringify(failed)).not.toContain('address_tokens');
    expect(JSON.stringify(failed)).not.toContain(confirm);
  });
});
