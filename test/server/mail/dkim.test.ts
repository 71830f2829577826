// Signed mail: invitations sent through a real SMTP server on 127.0.0.1, and .eml files
// written without SMTP_URL, verified by a real DKIM verifier (mailauth) whose DNS serves exactly
// the record `waitlist dns` printed, so the printed record is proven right too.
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { startSmtpServer, type SmtpTestServer } from '../../../scripts/lib/launch/smtp';
import { runCommand } from '../../../server/cli/waitlist';
import type { Config } from '../../../server/config';
import { createMailer, emlFile, mailFolder } from '../../../server/mail/transport';
import { openSqliteStore } from '../../../server/store';
import type { OutgoingMail } from '../../../server/store/mail-queue';
import { tempDataDir, testConfig } from '../../support/config';
import { headerBlock, verifyDkim as verify, zoneOf } from '../../support/dkim';

const SITE_URL = 'https://orgnote.example';
const MAIL_FROM = 'OrgNote <invite@orgnote.example>';

let smtp: SmtpTestServer;
let keyFile: string;
beforeAll(async () => {
  smtp = await startSmtpServer();
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  keyFile = path.join(tempDataDir(), 'dkim.pem');
  fs.writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
});
afterAll(() => smtp.close());
beforeEach(() => {
  smtp.received.length = 0;
});

function dkimConfig(env: Record<string, string | undefined> = {}): Config {
  return testConfig({
    SITE_URL,
    SMTP_URL: smtp.url,
    MAIL_FROM,
    DKIM_PRIVATE_KEY_FILE: keyFile,
    DKIM_SELECTOR: 'mail2026',
    ...env,
  });
}

async function cli(config: Config, ...argv: string[]): Promise<{ code: number; out: string }> {
  const store = openSqliteStore(config);
  try {
    let out = '';
    const code = await runCommand({ store, config }, argv, { out: (text) => void (out += text) });
    return { code, out };
  } finally {
    void store.close();
  }
}

/** Invites one waitlisted address through the CLI, as an operator would. */
async function invite(config: Config): Promise<void> {
  const store = openSqliteStore(config);
  try {
    await store.signups.add({ email: 'first@example.org', description: '' });
    let out = '';
    expect(
      await runCommand({ store, config }, ['invite', 'first@example.org'], {
        out: (text) => void (out += text),
      }),
    ).toBe(0);
    expect(out).toContain('1 sent');
  } finally {
    void store.close();
  }
}

describe('DKIM signatures', () => {
  let zone: Map<string, string[]>;
  beforeAll(async () => {
    const { code, out } = await cli(dkimConfig(), 'dns');
    expect(code).toBe(0);
    zone = zoneOf(out);
  });

  it('an invitation sent over SMTP verifies against the record waitlist dns prints', async () => {
    await invite(dkimConfig());
    const [mail] = await smtp.waitFor(1);
    const [result] = await verify(mail.raw, zone);
    expect(result.status.result).toBe('pass');
    expect(result.signingDomain).toBe('orgnote.example');
    expect(result.selector).toBe('mail2026');
    expect(result.status.aligned).toBe('orgnote.example');
    expect(result.info).toMatch(
      /^dkim=pass header\.i=@orgnote\.example header\.s=mail2026 header\.a=rsa-sha256 /,
    );
  });

  it('a message with List-Unsubscribe headers verifies, and the signature covers them', async () => {
    const config = dkimConfig();
    const mailer = createMailer(config);
    const mail: OutgoingMail = {
      from: MAIL_FROM,
      to: 'first@example.org',
      subject: 'Your OrgNote activation key',
      text: 'Hello\n',
      html: '<p>Hello</p>',
      messageId: '<list-unsubscribe@orgnote.example>',
      date: '2026-11-01T10:00:00.000Z',
      headers: {
        'List-Unsubscribe': '<https://site.example/leave?token=abc>',
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      },
    };
    try {
      await mailer.send(1, mail);
    } finally {
      mailer.close();
    }
    const [received] = await smtp.waitFor(1);
    const head = headerBlock(received.raw);
    expect(head).toMatch(/^List-Unsubscribe: <https:\/\/site\.example\/leave\?token=abc>$/m);
    expect(head).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/m);
    const [result] = await verify(received.raw, zone);
    expect(result.status.result).toBe('pass');
    // RFC 8058, section 4: both headers are among the signed fields (h=).
    const signedFields = /\bh=([^;]+)/
      .exec(head.replace(/\r\n[ \t]+/g, ''))![1]
      .toLowerCase()
      .split(':');
    expect(signedFields).toEqual(
      expect.arrayContaining([
        'list-unsubscribe',
        'list-unsubscribe-post',
        'from',
        'subject',
        'date',
        'to',
      ]),
    );
  });

  it('a tampered body or header no longer verifies', async () => {
    await invite(dkimConfig());
    const [mail] = await smtp.waitFor(1);
    const raw = mail.raw.toString('latin1');
    const end = raw.indexOf('\r\n\r\n');

    const body = `${raw.slice(0, end)}${raw.slice(end).replace(/activate/, 'activ8')}`;
    expect(body).not.toBe(raw);
    const [tamperedBody] = await verify(body, zone);
    expect(tamperedBody.status.result).not.toBe('pass');
    expect(tamperedBody.status.comment).toBe('body hash did not verify');

    const header = raw.replace(/^Subject: .*$/m, 'Subject: Your OrgNote activation key (renewed)');
    expect(header).not.toBe(raw);
    const [tamperedHeader] = await verify(header, zone);
    expect(tamperedHeader.status.result).toBe('fail');
  });

  it('an .eml written without SMTP_URL is signed too', async () => {
    const config = dkimConfig({ SMTP_URL: undefined });
    await invite(config);
    const [file] = fs.readdirSync(mailFolder(config.dataDir));
    expect(file).toMatch(/^\d+\.eml$/);
    const raw = fs.readFileSync(emlFile(config.dataDir, Number.parseInt(file, 10)));
    const [result] = await verify(raw, zone);
    expect(result.status.result).toBe('pass');
    expect(result.signingDomain).toBe('orgnote.example');
  });

  it('DKIM_DOMAIN signs for another domain than MAIL_FROM', async () => {
    const config = dkimConfig({ DKIM_DOMAIN: 'Mail.OrgNote.example' });
    const { out } = await cli(config, 'dns');
    await invite(config);
    const [mail] = await smtp.waitFor(1);
    const [result] = await verify(mail.raw, zoneOf(out));
    expect(result.status.result).toBe('pass');
    expect(result.signingDomain).toBe('mail.orgnote.example');
  });

  it('without DKIM settings nothing is signed', async () => {
    await invite(testConfig({ SITE_URL, SMTP_URL: smtp.url, MAIL_FROM }));
    const [mail] = await smtp.waitFor(1);
    expect(headerBlock(mail.raw)).not.toMatch(/^DKIM-Signature:/im);
  });
});

describe('waitlist dns', () => {
  it('prints the DKIM record in 255-character strings, and SPF and DMARC records marked to adapt', async () => {
    const { code, out } = await cli(dkimConfig(), 'dns');
    expect(code).toBe(0);
    const lines = out.trimEnd().split('\n');
    expect(lines).toHaveLength(6);
    expect(lines[0]).toMatch(/^; DKIM: .*publish as is/);
    expect(lines[1]).toMatch(
      /^mail2026\._domainkey\.orgnote\.example\. TXT "v=DKIM1; k=rsa; p=[A-Za-z0-9+/]+={0,2}"( "[A-Za-z0-9+/=]+")+$/,
    );
    const chunks = zoneOf(out).get('mail2026._domainkey.orgnote.example')!;
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(255);
    expect(lines[2]).toMatch(/^; SPF, to adapt: .*127\.0\.0\.1 \(SMTP_URL\)/);
    expect(lines[3]).toBe('orgnote.example. TXT "v=spf1 mx ~all"');
    expect(lines[4]).toMatch(/^; DMARC, to adapt: /);
    expect(lines[5]).toBe(
      '_dmarc.orgnote.example. TXT "v=DMARC1; p=none; rua=mailto:dmarc-reports@orgnote.example"',
    );
    // The key's public half only: nothing of the private key file is printed.
    const pem = fs.readFileSync(keyFile, 'utf8');
    const privateBody = pem.split('\n').slice(1, -2).join('');
    expect(out).not.toContain(privateBody.slice(0, 40));
  });

  it('without DKIM settings says what to set', async () => {
    await expect(cli(testConfig({ MAIL_FROM }), 'dns')).rejects.toThrow(
      'dns needs DKIM_PRIVATE_KEY_FILE and DKIM_SELECTOR (DKIM_DOMAIN defaults to the domain of MAIL_FROM).',
    );
  });
});
