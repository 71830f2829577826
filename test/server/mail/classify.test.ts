// Which failures end a message for good and which keep it queued, from the fields nodemailer 10
// sets (pinned against a real server in smtp-fixture.test.ts), and a real server that wants a
// login we do not have: a setup mistake must not fail every invitation for good.
import { startSmtpServer } from '../../../scripts/lib/launch/smtp';
import { runCommand } from '../../../server/cli/waitlist';
import { isPermanentRefusal, isServerUnavailable } from '../../../server/mail/transport';
import { openSqliteStore } from '../../../server/store';
import { testConfig } from '../../support/config';

const smtpError = (fields: Record<string, unknown>) =>
  Object.assign(new Error('refused by <someone@example.org>'), fields);

describe('classifying a failed send', () => {
  it.each([
    [
      '451 to the recipient',
      { code: 'EENVELOPE', responseCode: 451, command: 'RCPT TO' },
      false,
      false,
    ],
    [
      '550 to the recipient',
      { code: 'EENVELOPE', responseCode: 550, command: 'RCPT TO' },
      true,
      false,
    ],
    [
      '451 after the content',
      { code: 'EMESSAGE', responseCode: 451, command: 'DATA' },
      false,
      false,
    ],
    [
      '554 after the content',
      { code: 'EMESSAGE', responseCode: 554, command: 'DATA' },
      true,
      false,
    ],
    [
      '503 out of sequence',
      { code: 'EENVELOPE', responseCode: 503, command: 'RCPT TO' },
      false,
      false,
    ],
    [
      '530 to our sender: a login is needed',
      { code: 'EENVELOPE', responseCode: 530, command: 'MAIL FROM' },
      false,
      true,
    ],
    [
      '535 at login: wrong password',
      { code: 'EAUTH', responseCode: 535, command: 'AUTH PLAIN' },
      false,
      true,
    ],
    [
      'a refused connection',
      { code: 'ESOCKET', originalCode: 'ECONNREFUSED', command: 'CONN' },
      false,
      true,
    ],
    ['a connection dropped mid-message', { code: 'ECONNECTION', command: 'CONN' }, false, true],
    ['a server that never answers', { code: 'ETIMEDOUT', command: 'CONN' }, false, true],
    ['something else entirely', {}, false, true],
  ])('%s: permanent %s, server unavailable %s', (_case, fields, permanent, unavailable) => {
    expect(isPermanentRefusal(smtpError(fields))).toBe(permanent);
    expect(isServerUnavailable(smtpError(fields))).toBe(unavailable);
  });
});

it('keeps invitations queued when the server wants a login SMTP_URL does not carry, or refuses the password', async () => {
  const smtp = await startSmtpServer({ auth: { user: 'mailer', pass: 'right' } });
  try {
    for (const smtpUrl of [
      `smtp://127.0.0.1:${smtp.port}`,
      `smtp://mailer:wrong@127.0.0.1:${smtp.port}`,
    ]) {
      const config = testConfig({ SITE_URL: 'https://orgnote.example', SMTP_URL: smtpUrl });
      const store = openSqliteStore(config);
      await store.signups.add({ email: 'a@example.org', description: '' });
      let out = '';
      const code = await runCommand({ store, config }, ['invite', 'a@example.org'], {
        out: (text) => void (out += text),
      });
      expect({ code, out: out.split('\n')[0] }).toEqual({
        code: 0,
        out: expect.stringMatching(/^queued\s+a@example\.org$/),
      });
      expect(await store.mail.counts()).toEqual({ queued: 1, sent: 0, failed: 0, dead: 0 });
      void store.close();
    }
    expect(smtp.received).toHaveLength(0);
  } finally {
    await smtp.close();
  }
});
