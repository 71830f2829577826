// People in control of their address, through the real parts: the site's API takes a
// signup, the mail worker sends its confirmation through a real SMTP server on 127.0.0.1, and the
// message is read back with mailparser. The confirm and leave pages themselves are driven in
// address-pages.test.ts; here the operations behind them, the CLI's --next, undeliverable
// addresses and the expiry sweep, with the log and the metrics an operator reads.
import fs from 'node:fs';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import request from 'supertest';
import { createApp } from '../../../server/app';
import { runCommand } from '../../../server/cli/waitlist';
import type { Config } from '../../../server/config';
import { sendClaimed } from '../../../server/mail/send';
import { createMailer, mailFolder } from '../../../server/mail/transport';
import { createMetrics } from '../../../server/metrics';
import { openSqliteStore } from '../../../server/store';
import type { SqliteStore } from '../../../server/store/sqlite';
import {
  confirmAddress,
  leaveByLink,
  requestLeaveLink,
  sweepUnconfirmed,
} from '../../../server/waitlist/address';
import { startWorkers } from '../../../server/workers';
import { remove } from '../../../server/waitlist/remove';
import { capturingLogger, testConfig } from '../../support/config';
import {
  startSmtpServer,
  type ReceivedMail,
  type SmtpTestServer,
} from '../../../scripts/lib/launch/smtp';

const SITE_URL = 'https://orgnote.example';
const HOUR = 3_600_000;
/** How long the mail pool may take to close once the test is done with it. */
const STOP_GRACE_MS = 1_000;

let smtp: SmtpTestServer;
beforeAll(async () => {
  smtp = await startSmtpServer();
});
afterAll(() => smtp.close());
beforeEach(() => {
  smtp.received.length = 0;
  smtp.mode('accept');
});

/**
 * A running site's parts: the app, its store on a test clock, the mail worker, the log and the
 * metrics.
 */
function site(env: Record<string, string> = {}) {
  let time = Date.parse('2026-11-01T10:00:00.000Z');
  const config: Config = testConfig({
    SITE_URL,
    SMTP_URL: smtp.url,
    CONFIRM_SIGNUPS: 'on',
    ...env,
  });
  const store: SqliteStore = openSqliteStore(config, () => time);
  const { logger, lines } = capturingLogger();
  const metrics = createMetrics({ pending: { outbox: () => 0, mail: () => 0 } });
  // As server/index.ts starts them; never saturated: a busy machine would otherwise leave a wake
  // to the 60 s poll, and the machine's load is not what this file tests.
  const workers = startWorkers({
    config,
    store,
    logger,
    metrics,
    pollMs: 60_000,
    busy: () => false,
  });
  const wakes = { wakeMail: workers.wakeMail, wakeWebhooks: workers.wakeWebhooks };
  const app = createApp(config, { store, logger, metrics, ...wakes });
  const deps = { store, config, logger, metrics, ...wakes };
  return {
    config,
    store,
    app,
    deps,
    lines,
    metrics,
    advance: (ms: number) => void (time += ms),
    now: () => time,
    async close() {
      await workers.stop(STOP_GRACE_MS);
      await store.close();
    },
  };
}

type Site = ReturnType<typeof site>;
let open: Site[] = [];
afterEach(async () => {
  await Promise.all(open.map((s) => s.close()));
  open = [];
});
function start(env?: Record<string, string>): Site {
  const s = site(env);
  open.push(s);
  return s;
}

/** The token of the first link to `path` in a message's text. */
/** A signup through the API, as the site's form sends it. */
const signUp = (s: Site, email: string, description = '') =>
  request(s.app).post('/api/subscriptions').send({ email, description });

function tokenIn(mail: ReceivedMail, path: '/confirm' | '/leave'): string {
  const match = new RegExp(`${SITE_URL}${path}\\?token=([A-Za-z0-9_-]+)`).exec(
    mail.parsed.text ?? '',
  );
  if (!match) throw new Error(`no ${path} link in: ${mail.parsed.text}`);
  return match[1];
}

/** The List-Unsubscribe URL's token of a message. */
function unsubscribeToken(mail: ReceivedMail): string {
  const line =
    mail.parsed.headerLines.find((header) => header.key === 'list-unsubscribe')?.line ?? '';
  const url = /<([^>]+)>/.exec(line)?.[1] ?? '';
  expect(url.startsWith(`${SITE_URL}/leave?token=`)).toBe(true);
  return new URL(url).searchParams.get('token')!;
}

async function cli(s: Site, ...argv: string[]): Promise<string> {
  let out = '';
  await runCommand({ store: s.store, config: s.config }, argv, {
    out: (text) => void (out += text),
  });
  return out;
}

const metric = async (s: Site, event: string) => {
  const text = await s.metrics.text();
  return Number(
    new RegExp(`^address_events_total\\{event="${event}"\\} (\\d+)$`, 'm').exec(text)?.[1],
  );
};

describe('confirmation', () => {
  it('mails a confirmation through the queue at once, with one-click leave headers; only the confirmed address is invited by --next', async () => {
    const s = start();
    const res = await signUp(s, 'Ann@Example.org', 'emacs');
    expect(res.status).toBe(201);
    // Woken by the signup: no poll interval to wait for (the worker polls once a minute here).
    const [mail] = await smtp.waitFor(1);
    // nodemailer writes the domain in lower case; the local part as typed.
    expect(mail.parsed.to).toMatchObject({ text: 'Ann@example.org' });
    expect(mail.parsed.subject).toBe('Confirm your address for the OrgNote waitlist');
    expect(
      mail.parsed.headerLines.find((header) => header.key === 'list-unsubscribe-post')?.line,
    ).toBe('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
    const confirm = tokenIn(mail, '/confirm');
    expect(unsubscribeToken(mail)).not.toBe(confirm);

    // A repeat within the hour: the same answer, no second mail.
    expect((await signUp(s, 'ann@example.org')).status).toBe(201);
    expect(await cli(s, 'stats')).toMatch(/^unconfirmed\s+1$/m);
    expect(await cli(s, 'invite', '--next', '5')).toContain('0 sent');
    expect(await cli(s, 'invite', 'ann@example.org')).toMatch(/^unconfirmed\s+Ann@Example\.org$/m);

    expect(await confirmAddress(s.deps, confirm)).toEqual({ ok: true });
    expect(await metric(s, 'confirmed')).toBe(1);
    expect(await cli(s, 'list')).toMatch(
      /Ann@Example\.org\s+waitlisted\s+2026-11-01T10:00:00\.000Z/,
    );
    expect(await cli(s, 'invite', '--next', '5')).toMatch(/^sent\s+Ann@Example\.org$/m);
    const [, invitation] = await smtp.waitFor(2);
    expect(invitation.parsed.subject).toBe('Your OrgNote activation key');
    // Every mail carries its own leave link, in List-Unsubscribe and in the text.
    expect(unsubscribeToken(invitation)).toBe(tokenIn(invitation, '/leave'));
    expect(smtp.received).toHaveLength(2);
    // Nothing in the log names the address or a token.
    const log = s.lines.join('\n');
    expect(log.toLowerCase()).not.toContain('ann@example.org');
    expect(log).not.toContain(confirm);
  });

  it('sends nothing and confirms nobody without the setting', async () => {
    const s = start({ CONFIRM_SIGNUPS: 'off' });
    expect((await signUp(s, 'bob@example.org')).status).toBe(201);
    await s.deps.store.mail.counts().then((counts) => expect(counts.queued).toBe(0));
    expect(await cli(s, 'stats')).toMatch(/^waitlisted\s+1$/m);
  });
});

describe('leaving', () => {
  it('erases the address with its keys, mail and .eml files by its leave link, and counts it', async () => {
    const s = start({ SMTP_URL: '', MAIL_TO_FILES: 'on' });
    await signUp(s, 'cid@example.org', 'about me').expect(201);
    await s.store.signups.add({ email: 'stays@example.org', description: '' });
    const token = await waitForEml(s, 1);
    expect(fs.readdirSync(mailFolder(s.config.dataDir))).toHaveLength(1);
    expect(await leaveByLink(s.deps, token)).toEqual({ ok: true });
    expect(fs.readdirSync(mailFolder(s.config.dataDir))).toEqual([]);
    expect((await s.store.signups.list()).map((r) => r.email)).toEqual(['stays@example.org']);
    expect(await s.store.mail.counts()).toEqual({ queued: 0, sent: 0, failed: 0, dead: 0 });
    expect(await metric(s, 'left')).toBe(1);
    // Spent with the address: a second use changes nothing.
    expect(await leaveByLink(s.deps, token)).toEqual({ ok: false, refusal: 'invalid' });
    expect(await s.store.signups.count()).toBe(1);
  });

  it('takes back the .eml of a mail its sender was still writing when the address left', async () => {
    const config = testConfig({ SITE_URL });
    const store = openSqliteStore(config);
    try {
      await store.signups.add({ email: 'gone@example.org', description: '' });
      const compose = (to: string, key: string) => ({
        from: config.mailFrom,
        to,
        subject: 'Your key',
        text: key,
        html: '',
        messageId: '<k@x>',
        date: 'x',
      });
      // Queued and claimed in one step, as the CLI and the console invite: the sender is at work...
      const invited = await store.subscriptions.invite('gone@example.org', {
        again: false,
        compose,
      });
      if (invited.outcome !== 'invited') throw new Error(invited.outcome);
      const item = invited.mail;
      // ...when the address leaves: the erasure finds no .eml to remove yet.
      expect(await remove({ store, config }, 'gone@example.org')).toMatchObject({
        signup: true,
        mails: 1,
        emlFiles: 0,
      });
      const { logger, lines } = capturingLogger();
      const mailer = createMailer(config);
      expect(await sendClaimed(store.mail, mailer, item, logger)).toMatchObject({
        outcome: 'sent',
      });
      mailer.close();
      const folder = mailFolder(config.dataDir);
      expect(fs.existsSync(folder) ? fs.readdirSync(folder) : []).toEqual([]);
      expect(lines.filter((line) => line.includes('its copy withdrawn'))).toHaveLength(1);
    } finally {
      await store.close();
    }
  });

  it('mails a leave link only to an address on the list, answering the same either way', async () => {
    const s = start({ CONFIRM_SIGNUPS: 'off' });
    await s.store.signups.add({ email: 'dan@example.org', description: '' });
    expect(await requestLeaveLink(s.deps, { email: ' dan@example.org ' })).toEqual({ ok: true });
    expect(await requestLeaveLink(s.deps, { email: 'nobody@example.org' })).toEqual({ ok: true });
    const [mail] = await smtp.waitFor(1);
    expect(mail.parsed.to).toMatchObject({ text: 'dan@example.org' });
    expect(mail.parsed.subject).toBe('Your link to leave the OrgNote waitlist');
    expect(await leaveByLink(s.deps, tokenIn(mail, '/leave'))).toEqual({ ok: true });
    expect(await s.store.signups.count()).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(smtp.received).toHaveLength(1);
    expect(await requestLeaveLink(s.deps, { email: 'not an address' })).toEqual({
      ok: false,
      email: 'not an address',
      status: 400,
      refusal: 'not-an-address',
    });
    expect(await requestLeaveLink(s.deps, {})).toEqual({
      ok: false,
      email: '',
      status: 400,
      refusal: 'required',
    });
  });
});

describe('undeliverable', () => {
  it('marks an address the server refuses at RCPT TO, counts it, and keeps it from --next until it signs up again', async () => {
    const s = start({ CONFIRM_SIGNUPS: 'off' });
    await s.store.signups.add({ email: 'gone@example.org', description: '' });
    smtp.mode('permfail', 'RCPT');
    await requestLeaveLink(s.deps, { email: 'gone@example.org' });
    await waitUntil(async () => (await s.store.mail.counts()).failed === 1);
    expect(await s.store.subscriptions.stateOf('gone@example.org')).toBe('undeliverable');
    expect(await metric(s, 'undeliverable')).toBe(1);
    expect(await cli(s, 'stats')).toMatch(/^undeliverable\s+1$/m);
    expect(await cli(s, 'export')).toMatch(
      /^"gone@example\.org",.*,"undeliverable","en","","","",""\r$/m,
    );
    smtp.mode('accept');
    expect(await cli(s, 'invite', '--next', '5')).toContain('0 sent');
    await signUp(s, 'gone@example.org').expect(201);
    expect(await s.store.subscriptions.stateOf('gone@example.org')).toBe('waitlisted');
    expect(await cli(s, 'invite', '--next', '5')).toContain('1 sent');
  });
});

describe('expiry', () => {
  it('erases an address nobody confirmed within CONFIRM_WITHIN_HOURS, .eml included, and keeps the confirmed', async () => {
    const s = start({ SMTP_URL: '', MAIL_TO_FILES: 'on', CONFIRM_WITHIN_HOURS: '72' });
    await signUp(s, 'late@example.org').expect(201);
    await signUp(s, 'quick@example.org').expect(201);
    await waitForEml(s, 2);
    const quick = (await s.store.signups.list()).find((r) => r.email === 'quick@example.org')!;
    expect(quick.state).toBe('unconfirmed');
    const confirmToken = await tokenInEml(s, 'quick@example.org', '/confirm');
    expect(await confirmAddress(s.deps, confirmToken)).toEqual({ ok: true });

    s.advance(71 * HOUR);
    expect(await sweepUnconfirmed(s.deps, s.now())).toBe(0);
    s.advance(HOUR);
    expect(await sweepUnconfirmed(s.deps, s.now())).toBe(1);
    expect((await s.store.signups.list()).map((r) => r.email)).toEqual(['quick@example.org']);
    expect(fs.readdirSync(mailFolder(s.config.dataDir))).toHaveLength(1);
    expect(await metric(s, 'expired')).toBe(1);
  });
});

async function waitUntil(done: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The .eml files the site wrote, read back with mailparser, once there are `count`. */
async function emlMessages(s: Site, count: number): Promise<ReceivedMail[]> {
  const folder = mailFolder(s.config.dataDir);
  await waitUntil(
    async () =>
      fs.existsSync(folder) &&
      fs.readdirSync(folder).filter((f) => f.endsWith('.eml')).length >= count,
  );
  const files = fs.readdirSync(folder).sort();
  return Promise.all(
    files.map(async (file) => {
      const raw = fs.readFileSync(path.join(folder, file));
      return {
        raw,
        parsed: await simpleParser(raw),
        envelope: { from: '', to: [] },
        messageId: '',
      };
    }),
  );
}

/** Waits for `count` .eml files and returns the List-Unsubscribe token of the first one. */
async function waitForEml(s: Site, count: number): Promise<string> {
  return unsubscribeToken((await emlMessages(s, count))[0]);
}

/** A link's token from the .eml written to `to`. */
async function tokenInEml(s: Site, to: string, link: '/confirm' | '/leave'): Promise<string> {
  const mail = (await emlMessages(s, 1)).find((m) => (m.parsed.to as { text: string }).text === to);
  if (!mail) throw new Error(`no mail to ${to}`);
  return tokenIn(mail, link);
}
