// Invitations end to end in one process: the CLI's invite against a real SMTP server on 127.0.0.1
// (test/support/smtp.ts), what arrived parsed with mailparser, the key from the mail activating
// through the API, and the queue's behaviour when the server is down, busy (4xx) or refuses (5xx).
import request from 'supertest';
import { createApp } from '../../../server/app';
import { runCommand } from '../../../server/cli/waitlist';
import type { Config } from '../../../server/config';
import { startMailWorker } from '../../../server/workers/mail-worker';
import { createMailer } from '../../../server/mail/transport';
import { openSqliteStore, type SqliteStore as Store } from '../../../server/store';
import { capturingLogger, testConfig } from '../../support/config';
import { startSmtpServer, type SmtpTestServer } from '../../../scripts/lib/launch/smtp';

const SITE_URL = 'https://orgnote.example';

let smtp: SmtpTestServer;
beforeAll(async () => {
  smtp = await startSmtpServer();
});
afterAll(() => smtp.close());
beforeEach(() => {
  smtp.mode('accept');
  smtp.received.length = 0;
});
const opened: Harness[] = [];
afterEach(async () => {
  await smtp.start(); // a test may have stopped it
  for (const h of opened.splice(0)) h.close();
});

interface Harness {
  config: Config;
  store: Store;
  /** The test clock: the store's now(). */
  clock: { now: number };
  cli: (...argv: string[]) => Promise<{ code: number; out: string }>;
  /** One round of the running site's mail worker, at the test clock's time. */
  siteRetries: () => Promise<void>;
  lines: string[];
  close: () => void;
}

/** How many mails still hold their message, and with it the key in clear. */
const messagesKept = (h: Harness) =>
  h.store.db.prepare('SELECT COUNT(*) AS n FROM mail WHERE message IS NOT NULL').get();

/** A store with these signups, the CLI and the site's mail worker on it; closed after the test. */
async function harness(
  env: Record<string, string | undefined> = {},
  emails = ['first@example.org', 'Zoë+Notes@Example.org', 'third@example.org'],
): Promise<Harness> {
  const config = testConfig({
    SITE_URL,
    SMTP_URL: smtp.url,
    MAIL_FROM: 'OrgNote <invite@orgnote.example>',
    ...env,
  });
  const clock = { now: Date.parse('2026-11-01T10:00:00.000Z') };
  const store = openSqliteStore(config, () => (clock.now += 1));
  for (const email of emails) await store.signups.add({ email, description: '' });
  const { logger, lines } = capturingLogger();
  const mailer = createMailer(config);
  const worker = startMailWorker({ queue: store.mail, mailer, logger, pollMs: 3_600_000 });
  const h: Harness = {
    config,
    store,
    clock,
    lines,
    async cli(...argv) {
      let out = '';
      const code = await runCommand({ store, config }, argv, { out: (text) => void (out += text) });
      return { code, out };
    },
    siteRetries: () => worker.flush(),
    close() {
      void worker.stop();
      mailer.close();
      void store.close();
    },
  };
  opened.push(h);
  return h;
}

/** The key: the line of the plain-text part that is nothing but a key. */
function keyIn(text: string): string {
  const keys = text.split('\n').filter((line) => /^[A-Za-z0-9_-]{32}$/.test(line));
  expect(keys).toHaveLength(1);
  return keys[0];
}

describe('waitlist invite', () => {
  it('mails each address a key that then activates its subscription through the API', async () => {
    const h = await harness();
    const { code, out } = await h.cli('invite', 'first@example.org', 'zoë+notes@example.org');
    expect(code).toBe(0);
    expect(out).toMatch(/^sent\s+first@example\.org$/m);
    expect(out).toMatch(/^sent\s+Zoë\+Notes@Example\.org$/m);
    expect(out).toContain('2 sent, 0 queued, 0 failed');

    const mails = await smtp.waitFor(2);
    const zoe = mails.find((m) => m.envelope.to[0].toLowerCase() === 'zoë+notes@example.org')!;
    const { parsed } = zoe;
    expect(parsed.subject).toBe('Your OrgNote activation key');
    expect(parsed.from?.value).toEqual([{ name: 'OrgNote', address: 'invite@orgnote.example' }]);
    expect(parsed.messageId).toMatch(/^<[^@>]+@orgnote\.example>$/);
    expect(parsed.date).toBeInstanceOf(Date);
    expect(parsed.headers.get('content-type')).toMatchObject({ value: 'multipart/alternative' });
    expect(parsed.text).toContain(
      `${SITE_URL}/activate?email=${encodeURIComponent('Zoë+Notes@Example.org')}`,
    );
    expect(parsed.html).toContain(
      `href="${SITE_URL}/activate?email=${encodeURIComponent('Zoë+Notes@Example.org')}"`,
    );
    // Nothing fetched from elsewhere when the mail is opened: no images, no remote anything.
    expect(parsed.html).not.toMatch(/<img|src=|url\(/i);
    const key = keyIn(parsed.text!);
    expect(parsed.html).toContain(key);

    const app = createApp(h.config, { store: h.store });
    const activated = await request(app)
      .post('/api/subscription-activation')
      .field('email', 'zoë+notes@example.org')
      .field('key', key);
    expect(activated.status).toBe(200);
    expect(activated.body).toEqual({
      email: 'Zoë+Notes@Example.org',
      isActive: true,
      spaceLimit: h.config.spaceLimitBytes,
    });
    const row = (await h.store.signups.list()).find((r) => r.email === 'Zoë+Notes@Example.org')!;
    expect(row.invited_at).toEqual(expect.any(String));
    expect(row.activated_at).toEqual(expect.any(String));
    // The key existed in clear only until the mail went out.
    expect(messagesKept(h)).toEqual({ n: 0 });
  });

  it('skips an address already invited; --again sends a new key and the old one stops working', async () => {
    const h = await harness();
    await h.cli('invite', 'first@example.org');
    const [first] = await smtp.waitFor(1);
    const again = await h.cli('invite', 'FIRST@example.org');
    expect(again.out).toMatch(/^skipped\s+first@example\.org$/m);
    expect(smtp.received).toHaveLength(1);

    expect((await h.cli('invite', '--again', 'first@example.org')).out).toMatch(
      /^sent\s+first@example\.org$/m,
    );
    const [, second] = await smtp.waitFor(2);
    const oldKey = keyIn(first.parsed.text!);
    const newKey = keyIn(second.parsed.text!);
    expect(newKey).not.toBe(oldKey);
    expect(second.parsed.messageId).not.toBe(first.parsed.messageId);
    expect(await h.store.subscriptions.activate('first@example.org', oldKey)).toEqual({
      outcome: 'invalid',
    });
    expect(await h.store.subscriptions.activate('first@example.org', newKey)).toEqual({
      outcome: 'active',
      email: 'first@example.org',
    });
  });

  it('--again while the first mail still waits in the queue replaces it: only the working key goes out', async () => {
    const h = await harness();
    await smtp.stop();
    expect((await h.cli('invite', 'first@example.org')).out).toMatch(
      /^queued\s+first@example\.org$/m,
    );
    await smtp.start();
    expect((await h.cli('invite', '--again', 'first@example.org')).out).toMatch(
      /^sent\s+first@example\.org$/m,
    );
    h.clock.now += 24 * 3_600_000;
    await h.siteRetries();
    const [mail] = await smtp.waitFor(1);
    expect(smtp.received).toHaveLength(1);
    expect(
      await h.store.subscriptions.activate('first@example.org', keyIn(mail.parsed.text!)),
    ).toMatchObject({ outcome: 'active' });
    expect(await h.store.mail.counts()).toEqual({ queued: 0, sent: 1, failed: 0, dead: 0 });
  });

  it('refuses to mail an address that mail syntax would read as another one, before any key exists', async () => {
    const h = await harness({}, ['evil,victim@example.org', 'a<b@example.org', 'fine@example.org']);
    const dry = await h.cli('invite', '--next', '3', '--dry-run');
    expect(dry.out.match(/^cannot be mailed\s+\S+$/gm)).toHaveLength(2);
    const { code, out } = await h.cli('invite', '--next', '3');
    expect(code).toBe(1);
    expect(out).toMatch(/^cannot be mailed\s+evil,victim@example\.org$/m);
    expect(out).toMatch(/^cannot be mailed\s+a<b@example\.org$/m);
    expect(out).toMatch(/^sent\s+fine@example\.org$/m);
    await smtp.waitFor(1);
    expect(smtp.received.map((m) => m.envelope.to)).toEqual([['fine@example.org']]);
    expect(await h.store.signups.stats()).toMatchObject({ waitlisted: 2, invited: 1 });
  });

  it('--next N invites the N oldest addresses not invited yet; --dry-run only lists them', async () => {
    const h = await harness({}, [
      'a@example.org',
      'b@example.org',
      'c@example.org',
      'd@example.org',
    ]);
    await h.cli('invite', 'b@example.org');
    await smtp.waitFor(1);
    const dry = await h.cli('invite', '--next', '2', '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.out).toMatch(
      /^would invite\s+a@example\.org\nwould invite\s+c@example\.org\n2 would be invited/m,
    );
    expect(await h.store.signups.stats()).toMatchObject({ waitlisted: 3, invited: 1 });

    const { out } = await h.cli('invite', '--next', '2');
    expect(
      out
        .match(/^sent\s+\S+$/gm)
        ?.map((line) => line.split(/\s+/)[1])
        .sort(),
    ).toEqual(['a@example.org', 'c@example.org']);
    await smtp.waitFor(3);
    expect(smtp.received.map((m) => m.envelope.to[0]).sort()).toEqual([
      'a@example.org',
      'b@example.org',
      'c@example.org',
    ]);
    expect(await h.store.signups.stats()).toEqual({
      total: 4,
      waitlisted: 1,
      invited: 3,
      activated: 0,
      unconfirmed: 0,
      undeliverable: 0,
    });
  });

  it('says which addresses are not on the waitlist, with exit code 1, and invites the rest', async () => {
    const h = await harness();
    const { code, out } = await h.cli('invite', 'stranger@example.org', 'first@example.org');
    expect(code).toBe(1);
    expect(out).toMatch(/^not on the waitlist\s+stranger@example\.org$/m);
    expect(out).toMatch(/^sent\s+first@example\.org$/m);
    expect(await h.store.signups.count()).toBe(3);
  });

  it.each([
    ['no SITE_URL', { SITE_URL: undefined }, /needs SITE_URL/],
    [
      'BACKEND_URL set',
      { BACKEND_URL: 'http://127.0.0.1:9' },
      /BACKEND_URL is set: signups live in the backend/,
    ],
  ])('refuses to invite with %s, changing nothing', async (_case, env, message) => {
    const h = await harness(env);
    await expect(h.cli('invite', 'first@example.org')).rejects.toThrow(message);
    expect((await h.store.signups.stats()).invited).toBe(0);
    expect(await h.store.mail.counts()).toEqual({ queued: 0, sent: 0, failed: 0, dead: 0 });
  });

  it.each([
    [['invite'], /needs addresses or --next/],
    [['invite', '--next', '0'], /--next: not a positive whole number/],
    [['invite', '--next', 'ten'], /--next: not a positive whole number/],
    [['invite', '--next', '2', 'a@example.org'], /addresses or --next N, not both/],
  ])('answers %j with a usage error', async (argv, message) => {
    const h = await harness();
    await expect(h.cli(...argv)).rejects.toThrow(message);
  });
});

describe('the mail queue', () => {
  it('queues mail while the SMTP server is down; once it is back, the site delivers each message exactly once', async () => {
    const h = await harness();
    await smtp.stop();
    const { code, out } = await h.cli('invite', '--next', '3');
    expect(code).toBe(0);
    expect(out.match(/^queued\s/gm)).toHaveLength(3);
    expect(out).toContain('retried by the running site');
    const listed = await h.cli('mail');
    expect(listed.out).toContain('3 queued, 0 failed');
    expect(listed.out).toMatch(/ECONNREFUSED/);

    // The first retry comes within 10 s.
    const dues = (await h.store.mail.pending()).map((m) => m.nextAttemptAt);
    expect(Math.max(...dues) - h.clock.now).toBeLessThanOrEqual(10_000);
    await h.siteRetries();
    expect(smtp.received).toHaveLength(0); // not due yet

    await smtp.start();
    h.clock.now = Math.max(...dues) + 1;
    await h.siteRetries();
    await smtp.waitFor(3);
    h.clock.now += 24 * 3_600_000;
    await h.siteRetries();
    await h.siteRetries();
    expect(smtp.stats()).toMatchObject({
      received: 3,
      uniqueMessageIds: 3,
      duplicates: 0,
      recipients: 3,
    });
    expect(await h.store.mail.counts()).toEqual({ queued: 0, sent: 3, failed: 0, dead: 0 });
  });

  it('stops trying once the server is unreachable, queues the rest at once, and the site delivers them all', async () => {
    const emails = Array.from({ length: 60 }, (_, i) => `down${i}@example.org`);
    const h = await harness({}, emails);
    await smtp.stop();
    const { out } = await h.cli('invite', '--next', '60');
    expect(out.match(/^queued\s/gm)).toHaveLength(60);
    const pending = await h.store.mail.pending();
    // Only the first window of sends met the closed port; the rest were never tried.
    const tried = pending.filter((m) => m.attempts === 1).length;
    expect(tried).toBeLessThan(60);
    expect(pending.filter((m) => m.attempts === 0).every((m) => m.lastError === null)).toBe(true);
    expect(Math.max(...pending.map((m) => m.nextAttemptAt)) - h.clock.now).toBeLessThanOrEqual(
      10_000,
    );

    await smtp.start();
    h.clock.now += 60_000;
    await h.siteRetries();
    await h.siteRetries();
    await smtp.waitFor(60);
    expect(smtp.stats()).toMatchObject({ received: 60, duplicates: 0, recipients: 60 });
  });

  it('retries a 4xx with backoff until the server takes it', async () => {
    const h = await harness();
    smtp.mode('tempfail');
    expect((await h.cli('invite', 'first@example.org')).out).toMatch(
      /^queued\s+first@example\.org$/m,
    );
    const [summary] = await h.store.mail.pending();
    expect(summary).toMatchObject({ state: 'queued', attempts: 1 });
    expect(summary.lastError).toMatch(/^EENVELOPE 451/);
    const firstRetry = summary.nextAttemptAt - h.clock.now;
    h.clock.now = summary.nextAttemptAt;
    await h.siteRetries();
    const [later] = await h.store.mail.pending();
    expect(later.attempts).toBe(2);
    expect(later.nextAttemptAt - h.clock.now).toBeGreaterThan(firstRetry); // backing off

    smtp.mode('accept');
    h.clock.now = later.nextAttemptAt;
    await h.siteRetries();
    await smtp.waitFor(1);
    expect(await h.store.mail.counts()).toEqual({ queued: 0, sent: 1, failed: 0, dead: 0 });
  });

  it('records a 5xx refusal as failed, never retries it, and keeps addresses out of the log', async () => {
    const h = await harness();
    smtp.mode('permfail');
    const { code, out } = await h.cli('invite', 'first@example.org');
    expect(code).toBe(1);
    expect(out).toMatch(/^failed\s+first@example\.org$/m);
    const listed = await h.cli('mail');
    expect(listed.out).toMatch(/failed\s+1\s+EENVELOPE 550/);
    expect(listed.out).toContain('0 queued, 1 failed');
    smtp.mode('accept');
    h.clock.now += 24 * 3_600_000;
    await h.siteRetries();
    expect(smtp.received).toHaveLength(0);
    expect(messagesKept(h)).toEqual({ n: 0 });
  });

  it('the site worker logs what it does without an address or a key', async () => {
    const h = await harness();
    await smtp.stop();
    await h.cli('invite', '--next', '3');
    await smtp.start();
    h.clock.now += 60_000;
    await h.siteRetries();
    const mails = await smtp.waitFor(3);
    expect(h.lines.join('\n')).toMatch(/mail sent/);
    for (const mail of mails) {
      expect(h.lines.join('\n').toLowerCase()).not.toContain(mail.envelope.to[0].toLowerCase());
      expect(h.lines.join('\n')).not.toContain(keyIn(mail.parsed.text!));
    }
  });
});
