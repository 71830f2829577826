// The welcome mail through the real parts, on both engines: the site's API and pages take the
// signup and the confirmation, the mail worker writes the welcome the store records as owed and
// sends it through a real SMTP server on 127.0.0.1, and the message is read back with mailparser.
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { createApp } from '../../../server/app';
import type { Config } from '../../../server/config';
import { openSqliteStore } from '../../../server/store';
import type { Store } from '../../../server/store/types';
import { welcomeMailFor } from '../../../server/mail/welcome';
import { startWorkers } from '../../../server/workers';
import { STATIC_LINKS } from '../../../shared/links';
import { capturingLogger, tempDataDir, testConfig } from '../../support/config';
import {
  startSmtpServer,
  type ReceivedMail,
  type SmtpTestServer,
} from '../../../scripts/lib/launch/smtp';
import { describeEachEngine, type StoreEngine } from '../../support/stores';

const SITE_URL = 'https://orgnote.example';
const NUDGE = 'Want to get your invitation faster? Join patreon';

let smtp: SmtpTestServer;
beforeAll(async () => {
  smtp = await startSmtpServer();
});
afterAll(() => smtp.close());
beforeEach(() => {
  smtp.received.length = 0;
});

/** The site as server/index.ts starts it: the app and its workers. */
function site(config: Config, store: Store) {
  const { logger, lines } = capturingLogger();
  // Never saturated: a busy machine would otherwise leave a wake to the 60 s poll, and the
  // machine's load is not what this file tests.
  const workers = startWorkers({ config, store, logger, pollMs: 60_000, busy: () => false });
  const app = createApp(config, { store, logger, wakeMail: workers.wakeMail });
  return {
    app,
    store,
    lines,
    workers,
    signUp: (email: string) =>
      request(app).post('/api/subscriptions').send({ email, description: 'emacs' }),
    async close() {
      await workers.stop(1_000);
    },
  };
}

type Site = ReturnType<typeof site>;
let open: Site[] = [];
afterEach(async () => {
  await Promise.all(open.map((s) => s.close()));
  open = [];
});

async function start(engine: StoreEngine, env: Record<string, string> = {}): Promise<Site> {
  const config = testConfig({ SITE_URL, SMTP_URL: smtp.url, WELCOME_MAIL: 'on', ...env });
  const s = site(config, await engine.open({ now: Date.now }));
  open.push(s);
  return s;
}

const header = (mail: ReceivedMail, key: string) =>
  mail.parsed.headerLines.find((line) => line.key === key)?.line;

/** The List-Unsubscribe URL of a message, path and query only (supertest adds the origin). */
function unsubscribePath(mail: ReceivedMail): string {
  const url = new URL(/<([^>]+)>/.exec(header(mail, 'list-unsubscribe') ?? '')?.[1] ?? '');
  expect(url.origin + url.pathname).toBe(`${SITE_URL}/leave`);
  return url.pathname + url.search;
}

const confirmToken = (mail: ReceivedMail) =>
  /\/confirm\?token=([A-Za-z0-9_-]+)/.exec(mail.parsed.text ?? '')![1];

describeEachEngine((engine) => {
  it('welcomes a new address once on its signup, with the nudge and a one-click leave; never a repeat', async () => {
    const s = await start(engine);
    await s.signUp('Ann@Example.org').expect(201);
    // Woken by the signup: the worker's own poll is a minute away.
    const [mail] = await smtp.waitFor(1);
    expect(mail.envelope.to).toEqual(['Ann@example.org']);
    expect(mail.parsed.subject).toBe('Welcome to the OrgNote waitlist');
    expect(mail.parsed.text).toContain('Thank you for joining the OrgNote waitlist');
    expect(mail.parsed.text).toContain('an invitation and an activation key');
    expect(mail.parsed.text).toContain(`${NUDGE}: ${STATIC_LINKS.donation}`);
    expect(mail.parsed.html).toContain(
      `Want to get your invitation faster? <a href="${STATIC_LINKS.donation}">Join patreon</a>`,
    );
    expect(header(mail, 'list-unsubscribe-post')).toBe(
      'List-Unsubscribe-Post: List-Unsubscribe=One-Click',
    );
    // The leave link in the text is the one in List-Unsubscribe.
    expect(mail.parsed.text).toContain(`${SITE_URL}${unsubscribePath(mail)}`);

    // A repeat, in another case, is answered the same and owes nothing.
    await s.signUp(' ann@example.ORG ').expect(201);
    await s.workers.flush();
    expect(smtp.received).toHaveLength(1);
    expect(await s.store.signups.welcomesDue()).toBe(0);

    // The mail provider's one-click POST to the List-Unsubscribe URL erases the address.
    const left = await request(s.app)
      .post(unsubscribePath(mail))
      .type('form')
      .send('List-Unsubscribe=One-Click');
    expect(left.status).toBe(200);
    expect(await s.store.signups.count()).toBe(0);
    expect(s.lines.join('\n').toLowerCase()).not.toContain('ann@example.org');
  });

  it('with CONFIRM_SIGNUPS on, welcomes an address only once it confirms, and only once', async () => {
    const s = await start(engine, { CONFIRM_SIGNUPS: 'on' });
    await s.signUp('bob@example.org').expect(201);
    const [confirmation] = await smtp.waitFor(1);
    expect(confirmation.parsed.subject).toBe('Confirm your address for the OrgNote waitlist');
    await s.workers.flush();
    expect(smtp.received).toHaveLength(1);

    // The same link posted twice at once (a double click, two replicas): one confirmation.
    const token = confirmToken(confirmation);
    const posts = await Promise.all(
      [1, 2].map(() => request(s.app).post('/confirm').type('form').send({ token })),
    );
    expect(posts.map((res) => res.status).sort()).toEqual([200, 410]);
    const [, welcome] = await smtp.waitFor(2);
    expect(welcome.parsed.subject).toBe('Welcome to the OrgNote waitlist');
    expect(welcome.parsed.text).toContain(NUDGE);

    // Confirming again, and signing up again once confirmed, owe nothing more.
    expect((await request(s.app).post('/confirm').type('form').send({ token })).status).toBe(410);
    await s.signUp('bob@example.org').expect(201);
    await s.workers.flush();
    expect(smtp.received.map((mail) => mail.parsed.subject)).toEqual([
      'Confirm your address for the OrgNote waitlist',
      'Welcome to the OrgNote waitlist',
    ]);
  });

  it('sends no welcome at all without WELCOME_MAIL', async () => {
    const s = await start(engine, { WELCOME_MAIL: '' });
    await s.signUp('cid@example.org').expect(201);
    await s.workers.flush();
    expect(await s.store.signups.welcomesDue()).toBe(0);
    expect(smtp.received).toHaveLength(0);
    expect(await s.store.mail.counts()).toEqual({ queued: 0, sent: 0, failed: 0, dead: 0 });
  });

  it('forgets the welcome owed to an address erased before the worker wrote it', async () => {
    const config = testConfig({ SITE_URL, WELCOME_MAIL: 'on', MAIL_TO_FILES: 'on' });
    const store = await engine.open({ now: Date.now });
    await store.signups.add({ email: 'dee@example.org', description: '' }, { welcome: true });
    await store.signups.add({ email: 'eve@example.org', description: '' }, { welcome: true });
    expect(await store.signups.welcomesDue()).toBe(2);
    await store.erase('dee@example.org');
    expect(await store.signups.welcomesDue()).toBe(1);
    const written = await store.addressLinks.mailWelcomes(10, welcomeMailFor(config)!);
    expect(written.map((item) => item.message.to)).toEqual(['eve@example.org']);
    expect(await store.addressLinks.mailWelcomes(10, welcomeMailFor(config)!)).toEqual([]);
  });
});

describe('the welcome mail on SQLite', () => {
  it('is still sent after a restart between the signup and the worker (owed in the store)', async () => {
    const config = testConfig({ SITE_URL, SMTP_URL: smtp.url, WELCOME_MAIL: 'on' });
    // A site whose mail worker never ran: the process ended right after the 201.
    const before = openSqliteStore(config);
    await request(createApp(config, { store: before }))
      .post('/api/subscriptions')
      .send({ email: 'fay@example.org', description: '' })
      .expect(201);
    await before.close();

    const s = site(config, openSqliteStore(config));
    open.push(s);
    await s.workers.flush();
    const [mail] = await smtp.waitFor(1);
    expect(mail.envelope.to).toEqual(['fay@example.org']);
    expect(mail.parsed.subject).toBe('Welcome to the OrgNote waitlist');
    await s.store.close();
  });

  it("takes the operator's templates from MAIL_TEMPLATES_DIR, with every value escaped in HTML", async () => {
    const dir = path.join(tempDataDir(), 'templates');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'welcome.subject'), 'You are in, {{email}}\n');
    fs.writeFileSync(path.join(dir, 'welcome.txt'), 'Hi {{ email }}. Leave: {{leaveUrl}}\n');
    fs.writeFileSync(
      path.join(dir, 'welcome.html'),
      '<p>Hi <b>{{email}}</b> from <a href="{{siteUrl}}">us</a></p>',
    );
    const config = testConfig({
      SITE_URL,
      SMTP_URL: smtp.url,
      WELCOME_MAIL: 'on',
      MAIL_TEMPLATES_DIR: dir,
    });
    const s = site(config, openSqliteStore(config));
    open.push(s);
    await s.signUp('o&neil@example.org').expect(201);
    const [mail] = await smtp.waitFor(1);
    expect(mail.parsed.subject).toBe('You are in, o&neil@example.org');
    expect(mail.parsed.text).toBe(
      `Hi o&neil@example.org. Leave: ${SITE_URL}${unsubscribePath(mail)}\n`,
    );
    expect(mail.parsed.html).toBe(
      `<p>Hi <b>o&amp;neil@example.org</b> from <a href="${SITE_URL}">us</a></p>`,
    );
    expect(mail.parsed.text).not.toContain(NUDGE);
    await s.store.close();
  });
});
