// Mail over TLS: an smtp:// SMTP_URL must upgrade with STARTTLS, or someone on the path strips the
// offer and reads the password and the keys. Loopback is exempt, and the URL can say otherwise.
// The test relay (test/support/smtp.ts) offers no STARTTLS, as a stripped connection would look.
import { startSmtpServer, type SmtpTestServer } from '../../../scripts/lib/launch/smtp';
import { ConfigError, loadConfig } from '../../../server/config';
import { sendClaimed } from '../../../server/mail/send';
import { createMailer, smtpTransportOptions } from '../../../server/mail/transport';
import { openSqliteStore } from '../../../server/store';
import { runCli } from '../../support/cli';
import { capturingLogger, tempDataDir } from '../../support/config';
import { addInvited, composeInvitation } from '../../support/stores';

const PASSWORD = 'pw-never-shown-41';
const requiresTls = (url: string) => smtpTransportOptions(url, 30_000, undefined).requireTLS;

let smtp: SmtpTestServer;
beforeAll(async () => {
  smtp = await startSmtpServer({ auth: { user: 'mailer', pass: PASSWORD } });
});
afterAll(() => smtp.close());

describe('which SMTP_URL requires STARTTLS', () => {
  it.each([
    'smtp://mailer:pw@smtp.example.com:587',
    'smtp://smtp.example.com',
    'smtp://10.0.0.5:25',
    'smtp://[2001:db8::25]:587',
    'smtp://localhost.example.com:587',
    'smtp://127.example.com:587',
    'smtp://127.0.0.1:2525?tls=required',
    'smtp://localhost?tls=required',
  ])('%s: required', (url) => {
    expect(requiresTls(url)).toBe(true);
  });

  it.each([
    'smtp://127.0.0.1:2525',
    'smtp://127.8.9.10:25',
    'smtp://[::1]:25',
    'smtp://localhost:25',
    'smtp://LOCALHOST.:25',
    'smtp://mailer:pw@smtp.example.com:587?tls=optional',
    // TLS from the first byte: there is no STARTTLS to strip.
    'smtps://mailer:pw@smtp.example.com:465',
  ])('%s: not required', (url) => {
    expect(requiresTls(url)).toBe(false);
  });

  it('keeps ?tls= to itself: nodemailer gets the rest of the URL, credentials included', () => {
    const { url } = smtpTransportOptions(
      'smtp://mailer:p%40ss@smtp.example.com:587?tls=optional',
      30_000,
      undefined,
    );
    expect(url).toBe('smtp://mailer:p%40ss@smtp.example.com:587');
  });

  it('refuses any other ?tls= at start-up, naming SMTP_URL and not its password', () => {
    const load = () => loadConfig({ SMTP_URL: `smtp://mailer:${PASSWORD}@mx.example?tls=maybe` });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(/SMTP_URL: its \?tls= must be optional or required/);
    expect(load).not.toThrow(PASSWORD);
  });
});

describe('sending', () => {
  const mailerFor = (smtpUrl: string) =>
    createMailer({ smtpUrl, smtpTimeoutMs: 5_000, dataDir: tempDataDir(), dkim: undefined });

  it('a relay on loopback without STARTTLS still takes the mail', async () => {
    const mailer = mailerFor(smtp.url);
    try {
      const before = smtp.received.length;
      await mailer.send(1, composeInvitation('loopback@example.org', 'k'));
      expect(smtp.received.slice(before).map((mail) => mail.envelope.to)).toEqual([
        ['loopback@example.org'],
      ]);
    } finally {
      mailer.close();
    }
  });

  it('a relay without STARTTLS where TLS is required gets nothing, and the log says to fix SMTP_URL', async () => {
    const store = openSqliteStore({ dataDir: tempDataDir() });
    const mailer = mailerFor(`${smtp.url}?tls=required`);
    const { logger, lines } = capturingLogger();
    try {
      const before = smtp.received.length;
      const mail = await addInvited(store, 'stripped@example.org');
      expect(await sendClaimed(store.mail, mailer, mail, logger)).toEqual({
        outcome: 'queued',
        serverUnavailable: true,
      });
      expect(smtp.received.length).toBe(before);
      const logged = lines.join('');
      expect(logged).toContain('mail queued for retry');
      expect(logged).toContain(`SMTP_URL: STARTTLS with smtp://127.0.0.1:${smtp.port} failed`);
      expect(logged).toContain('?tls=optional');
      expect(logged).not.toContain(PASSWORD);
      expect(logged).not.toContain('stripped@example.org');
    } finally {
      mailer.close();
      await store.close();
    }
  });

  it('the CLI queues the invitation, and `waitlist mail` names SMTP_URL, never its password', async () => {
    const dataDir = tempDataDir();
    const store = openSqliteStore({ dataDir });
    await store.signups.add({ email: 'cli@example.org', description: '' });
    await store.close();
    const env = {
      DATA_DIR: dataDir,
      SITE_URL: 'https://orgnote.example/',
      SMTP_URL: `${smtp.url}?tls=required`,
    };
    const before = smtp.received.length;

    const invited = await runCli(env, ['invite', 'cli@example.org']);
    expect(invited.out).toMatch(/^queued\s+cli@example\.org$/m);
    expect(smtp.received.length).toBe(before);

    const listed = await runCli(env, ['mail']);
    expect(listed.code).toBe(0);
    expect(listed.out).toMatch(/cli@example\.org\s+queued\s+1\s.*SMTP_URL: STARTTLS with smtp:/);
    for (const output of [invited.out, invited.err, listed.out, listed.err])
      expect(output).not.toContain(PASSWORD);
  });
});
