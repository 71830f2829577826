// The five mails in the person's language, as a receiver gets them: composed by the site's own
// composers, sent DKIM-signed through a real SMTP server on 127.0.0.1, and read back with
// mailparser, which decodes the RFC 2047 subject and the UTF-8 parts the way a mail program does.
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { startSmtpServer, type SmtpTestServer } from '../../../scripts/lib/launch/smtp';
import { runCommand } from '../../../server/cli/waitlist';
import type { Config } from '../../../server/config';
import { confirmationMailFor } from '../../../server/mail/confirmation';
import { dataLinkMailFor } from '../../../server/mail/data-link';
import { invitationMailFor } from '../../../server/mail/invitation';
import { leaveLinkMailFor } from '../../../server/mail/leave-link';
import { createMailer } from '../../../server/mail/transport';
import { welcomeMailFor } from '../../../server/mail/welcome';
import { openSqliteStore } from '../../../server/store';
import type { OutgoingMail } from '../../../server/store/mail-queue';
import type { Language } from '../../../shared/i18n/languages';
import { tempDataDir, testConfig } from '../../support/config';
import { headerBlock, verifyDkim, zoneOf } from '../../support/dkim';

const SITE_URL = 'https://orgnote.example';
const TO = 'anna@example.org';

let smtp: SmtpTestServer;
let keyFile: string;
let zone: Map<string, string[]>;
beforeAll(async () => {
  smtp = await startSmtpServer();
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  keyFile = path.join(tempDataDir(), 'dkim.pem');
  fs.writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  const config = siteConfig();
  const store = openSqliteStore(config);
  let printed = '';
  try {
    await runCommand({ store, config }, ['dns'], { out: (text) => void (printed += text) });
  } finally {
    await store.close();
  }
  zone = zoneOf(printed);
});
afterAll(() => smtp.close());
beforeEach(() => {
  smtp.received.length = 0;
});

function siteConfig(env: Record<string, string> = {}): Config {
  return testConfig({
    SITE_URL,
    SMTP_URL: smtp.url,
    MAIL_FROM: 'OrgNote <hello@orgnote.example>',
    DKIM_PRIVATE_KEY_FILE: keyFile,
    DKIM_SELECTOR: 'mail2026',
    WELCOME_MAIL: 'on',
    ...env,
  });
}

/** Each mail as the site's composers write it for `TO`, in `language`. */
function compose(config: Config, language: Language): Record<string, OutgoingMail> {
  return {
    confirmation: confirmationMailFor(config)!.compose(
      TO,
      { confirm: 'confirm-token', leave: 'leave-token' },
      language,
    ),
    welcome: welcomeMailFor(config)!.compose(TO, 'leave-token', language),
    invitation: invitationMailFor(config)!(TO, 'KEY-1234', 'leave-token', language),
    leaveLink: leaveLinkMailFor(config)!(TO, 'leave-token', language),
    dataLink: dataLinkMailFor(config)!(TO, { data: 'data-token', leave: 'leave-token' }, language),
  };
}

/** Sends one mail through the SMTP server and gives back what arrived. */
async function sendAndReceive(config: Config, mail: OutgoingMail) {
  smtp.received.length = 0;
  const mailer = createMailer(config);
  try {
    await mailer.send(1, mail);
  } finally {
    mailer.close();
  }
  const [received] = await smtp.waitFor(1);
  return received;
}

/** What each Russian mail says and where its page link goes. */
const RUSSIAN: Record<string, { subject: string; says: string; page: string }> = {
  confirmation: {
    subject: 'Подтвердите запись в лист ожидания OrgNote',
    says: 'Ссылка действует 72\u00a0часа.',
    page: `${SITE_URL}/ru/confirm?token=confirm-token`,
  },
  welcome: {
    subject: 'Вы в листе ожидания OrgNote',
    says: 'Спасибо, что записались! Место в очереди за вами.',
    page: `${SITE_URL}/ru/leave?token=leave-token`,
  },
  invitation: {
    subject: 'Ваш ключ активации OrgNote',
    says: `Ключ подходит только для адреса ${TO}.`,
    page: `${SITE_URL}/ru/activate?email=${encodeURIComponent(TO)}`,
  },
  leaveLink: {
    subject: 'Ссылка для выхода из листа ожидания OrgNote',
    says: 'Перед удалением страница ещё раз спросит, уверены ли вы.',
    page: `${SITE_URL}/ru/leave?token=leave-token`,
  },
  dataLink: {
    subject: 'Что лист ожидания OrgNote хранит о вас',
    says: 'Ссылка действует 24\u00a0часа и сработает один раз.',
    page: `${SITE_URL}/ru/privacy/data#data-token`,
  },
};

const ENGLISH_SUBJECTS: Record<string, string> = {
  confirmation: 'Confirm your address for the OrgNote waitlist',
  welcome: 'Welcome to the OrgNote waitlist',
  invitation: 'Your OrgNote activation key',
  leaveLink: 'Your link to leave the OrgNote waitlist',
  dataLink: 'What the OrgNote waitlist holds about you',
};

describe('mail in Russian', () => {
  const mails = Object.keys(RUSSIAN);

  it.each(mails)(
    'the %s mail arrives in Russian, its links under /ru/, signed, with one-click leave',
    async (name) => {
      const config = siteConfig();
      const { raw, parsed } = await sendAndReceive(config, compose(config, 'ru')[name]);
      const expected = RUSSIAN[name];
      const head = headerBlock(raw);

      // The subject travels RFC 2047-encoded, the parts as UTF-8; mailparser decodes both.
      expect(head).toMatch(/^Subject: =\?UTF-8\?[BQ]\?/im);
      expect(raw.toString('latin1')).toMatch(
        /^Content-Type: text\/plain; charset=utf-8\r\nContent-Transfer-Encoding: (quoted-printable|base64)$/im,
      );
      expect(parsed.subject).toBe(expected.subject);
      expect(parsed.text).toContain('Здравствуйте!');
      expect(parsed.text).toContain(expected.says);
      expect(parsed.text).toContain('OrgNote\u00a0— заметки в org-mode');
      expect(parsed.text).toContain(expected.page);
      expect(parsed.html).toContain('<html lang="ru">');
      expect(parsed.html).toContain(expected.says);
      // No page link of the mail leads to an English page.
      const links = [...(parsed.text ?? '').matchAll(/https:\/\/orgnote\.example\/\S*/g)].map(
        ([link]) => link,
      );
      expect(links.length).toBeGreaterThan(0);
      for (const link of links) expect(link).toMatch(/^https:\/\/orgnote\.example\/ru\//);

      expect(parsed.headers.get('content-language')).toBe('ru');
      expect(head).toMatch(
        /^List-Unsubscribe: <https:\/\/orgnote\.example\/ru\/leave\?token=leave-token>$/m,
      );
      expect(head).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/m);
      const [signature] = await verifyDkim(raw, zone);
      expect(signature.status.result).toBe('pass');
    },
  );

  it.each(mails)('the %s mail stays English in English', async (name) => {
    const config = siteConfig();
    const { raw, parsed } = await sendAndReceive(config, compose(config, 'en')[name]);
    expect(parsed.subject).toBe(ENGLISH_SUBJECTS[name]);
    expect(parsed.text).toMatch(/^Hello,\n/);
    expect(parsed.text).not.toContain('/ru/');
    expect(parsed.html).toContain('<html lang="en">');
    expect(parsed.headers.get('content-language')).toBe('en');
    expect(headerBlock(raw)).toMatch(
      /^List-Unsubscribe: <https:\/\/orgnote\.example\/leave\?token=leave-token>$/m,
    );
    const [signature] = await verifyDkim(raw, zone);
    expect(signature.status.result).toBe('pass');
  });

  it('with LANGUAGES=en, a signup made in Russian gets English mail', () => {
    const english = compose(siteConfig(), 'en');
    const turnedOff = compose(siteConfig({ LANGUAGES: 'en' }), 'ru');
    for (const name of mails) {
      const { messageId: _a, ...mail } = turnedOff[name];
      const { messageId: _b, ...expected } = english[name];
      expect({ ...mail, date: '' }).toEqual({ ...expected, date: '' });
    }
  });

  it('counts hours as Russian does: 1 час, 3 часа, 5 часов, 21 час', () => {
    const line = (hours: number) =>
      confirmationMailFor(siteConfig({ CONFIRM_WITHIN_HOURS: String(hours) }))!
        .compose(TO, { confirm: 'c', leave: 'l' }, 'ru')
        .text.split('\n')
        .find((text) => text.startsWith('Ссылка действует'));
    expect([1, 3, 5, 21].map(line)).toEqual(
      ['1\u00a0час', '3\u00a0часа', '5\u00a0часов', '21\u00a0час'].map((hours) =>
        expect.stringMatching(new RegExp(`^Ссылка действует ${hours}\\.`)),
      ),
    );
  });
});
