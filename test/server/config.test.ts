import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig, publicConfigOf, withoutCredentials } from '../../server/config';
import { tempDataDir } from '../support/config';

describe('configuration', () => {
  it('has working defaults for a fresh clone', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: '0.0.0.0',
      backendUrl: undefined,
      webAppUrl: 'https://org-note.com',
      dataDir: path.resolve('./data'),
      trustProxy: 'loopback',
      backendTimeoutMs: 10000,
      logLevel: 'info',
      allowedOrigins: [],
      pageCacheSeconds: 300,
      smtpUrl: undefined,
      mailFrom: 'OrgNote <no-reply@localhost>',
      subscriptionApiToken: undefined,
      spaceLimitBytes: 1024 ** 3,
    });
  });

  it('reads the invitation and subscription-service settings', () => {
    const config = loadConfig({
      SMTP_URL: 'smtps://mailer:s3cret@smtp.example.com:465',
      MAIL_FROM: 'OrgNote team <team@orgnote.example>',
      SUBSCRIPTION_API_TOKEN: ' 0123456789abcdef ',
      SPACE_LIMIT_BYTES: '5242880',
    });
    expect(config).toMatchObject({
      smtpUrl: 'smtps://mailer:s3cret@smtp.example.com:465',
      mailFrom: 'OrgNote team <team@orgnote.example>',
      subscriptionApiToken: '0123456789abcdef',
      spaceLimitBytes: 5242880,
    });
    // Without MAIL_FROM the sender is a no-reply address at the site's own host.
    expect(loadConfig({ SITE_URL: 'https://orgnote.example/' }).mailFrom).toBe(
      'OrgNote <no-reply@orgnote.example>',
    );
    expect(loadConfig({ SMTP_URL: '', SUBSCRIPTION_API_TOKEN: '' })).toMatchObject({
      smtpUrl: undefined,
      subscriptionApiToken: undefined,
    });
  });

  it('reads PRIVACY_CONTACT, which defaults to MAIL_FROM', () => {
    expect(
      loadConfig({ PRIVACY_CONTACT: 'privacy@orgnote.example', MAIL_FROM: 'team@orgnote.example' })
        .privacyContact,
    ).toBe('privacy@orgnote.example');
    expect(loadConfig({ MAIL_FROM: 'OrgNote team <team@orgnote.example>' }).privacyContact).toBe(
      'OrgNote team <team@orgnote.example>',
    );
    expect(loadConfig({ SITE_URL: 'https://orgnote.example/' }).privacyContact).toBe(
      'OrgNote <no-reply@orgnote.example>',
    );
    expect(() => loadConfig({ PRIVACY_CONTACT: 'not an address' })).toThrow('PRIVACY_CONTACT');
  });

  it('reads the settings for several replicas on one database, and for metrics', () => {
    expect(loadConfig({})).toMatchObject({
      databaseUrl: undefined,
      databaseConnectSeconds: 30,
      outboxMaxItems: 100_000,
      mailMaxItems: 100_000,
      queueMaxAgeMs: 7 * 24 * 3_600_000,
      metricsPort: undefined,
      metricsHost: '127.0.0.1',
    });
    expect(
      loadConfig({
        DATABASE_URL: 'postgres://site:p%40ss@db.internal:5432/orgnote',
        DATABASE_CONNECT_SECONDS: '5',
        OUTBOX_MAX_ITEMS: '10',
        MAIL_QUEUE_MAX_ITEMS: '20',
        QUEUE_MAX_AGE_HOURS: '2',
        METRICS_PORT: '9464',
        METRICS_HOST: '0.0.0.0',
      }),
    ).toMatchObject({
      databaseUrl: 'postgres://site:p%40ss@db.internal:5432/orgnote',
      databaseConnectSeconds: 5,
      outboxMaxItems: 10,
      mailMaxItems: 20,
      queueMaxAgeMs: 2 * 3_600_000,
      metricsPort: 9464,
      metricsHost: '0.0.0.0',
    });
    expect(withoutCredentials('postgres://site:p%40ss@db.internal:5432/orgnote')).toBe(
      'postgres://db.internal:5432/orgnote',
    );
    // pg also reads a password from the query string: it never reaches a log either.
    expect(
      withoutCredentials('postgres://site@db.internal/orgnote?password=qs3cret&sslmode=require'),
    ).toBe('postgres://db.internal/orgnote');
  });

  it('prints an SMTP URL without its credentials', () => {
    expect(withoutCredentials('smtp://mailer:s3cret@smtp.example.com:587')).toBe(
      'smtp://smtp.example.com:587',
    );
  });

  it('parses every setting', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '127.0.0.1',
      BACKEND_URL: 'http://backend:4000/',
      WEB_APP_URL: 'https://app.example.com/',
      DATA_DIR: '/var/lib/orgnote',
      TRUST_PROXY: '2',
      UPSTREAM_TIMEOUT_MS: '2500',
      LOG_LEVEL: 'warn',
      ALLOWED_ORIGINS: 'https://partner.example, http://localhost:8080/',
      PAGE_CACHE_SECONDS: '60',
    });
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      backendUrl: 'http://backend:4000',
      webAppUrl: 'https://app.example.com',
      dataDir: '/var/lib/orgnote',
      trustProxy: 2,
      backendTimeoutMs: 2500,
      logLevel: 'warn',
      allowedOrigins: ['https://partner.example', 'http://localhost:8080'],
      pageCacheSeconds: 60,
    });
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, loopback' }).trustProxy).toBe(
      '10.0.0.0/8, loopback',
    );
    expect(loadConfig({ BACKEND_URL: '' }).backendUrl).toBeUndefined();
    expect(
      loadConfig({
        BOUNCE_SES_TOPIC_ARNS:
          'arn:aws:sns:eu-west-1:123456789012:ses-feedback, arn:aws-cn:sns:cn-north-1:123456789012:b',
      }).bounceSesTopicArns,
    ).toEqual([
      'arn:aws:sns:eu-west-1:123456789012:ses-feedback',
      'arn:aws-cn:sns:cn-north-1:123456789012:b',
    ]);
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['BACKEND_URL', 'not a url'],
    ['BACKEND_URL', 'ftp://files.example.com'],
    ['WEB_APP_URL', 'javascript:alert(1)'],
    ['UPSTREAM_TIMEOUT_MS', '-5'],
    ['LOG_LEVEL', 'loud'],
    ['SMTP_URL', 'http://smtp.example.com'],
    ['SMTP_URL', 'smtp://'],
    ['MAIL_FROM', 'not an address'],
    ['MAIL_FROM', 'Bad <two@addresses.example> <three@addresses.example>'],
    ['SUBSCRIPTION_API_TOKEN', 'short'],
    ['SUBSCRIPTION_API_TOKEN', 'two words of a token here'],
    ['SPACE_LIMIT_BYTES', '-1'],
    ['SPACE_LIMIT_BYTES', 'lots'],
    ['DATABASE_URL', 'mysql://db/orgnote'],
    ['DATABASE_URL', 'not a url'],
    ['OUTBOX_MAX_ITEMS', '0'],
    ['QUEUE_MAX_AGE_HOURS', '0'],
    ['METRICS_PORT', '70000'],
    ['METRICS_PORT', '3000'],
    ['BOUNCE_SES_TOPIC_ARNS', 'ses-feedback'],
    ['BOUNCE_SES_TOPIC_ARNS', 'arn:aws:sqs:us-east-1:123456789012:queue'],
    ['BOUNCE_POSTMARK_AUTH', 'no-password'],
    ['BOUNCE_SENDGRID_PUBLIC_KEY', 'not-a-key'],
    ['BOUNCE_RESEND_SECRET', 'plain-secret'],
  ])('refuses %s=%s with a message naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });

  it('keeps the timeouts in a working order', () => {
    expect(loadConfig({})).toMatchObject({
      keepAliveTimeoutMs: 65000,
      headersTimeoutMs: 66000,
      requestTimeoutMs: 120000,
      signupRateLimit: 10,
    });
    expect(() => loadConfig({ KEEP_ALIVE_TIMEOUT_MS: '70000' })).toThrow(
      'HEADERS_TIMEOUT_MS: must be above KEEP_ALIVE_TIMEOUT_MS',
    );
    expect(() => loadConfig({ HEADERS_TIMEOUT_MS: '200000' })).toThrow(
      'REQUEST_TIMEOUT_MS: must be at least HEADERS_TIMEOUT_MS',
    );
    expect(() => loadConfig({ SIGNUP_RATE_LIMIT: '-1' })).toThrow('SIGNUP_RATE_LIMIT');
  });

  it('exposes only the web app URL, the privacy contact, whether signups confirm, how long backups last and the languages to the browser', () => {
    const config = loadConfig({
      BACKEND_URL: 'http://internal:4000',
      DATA_DIR: '/secret',
      CONFIRM_SIGNUPS: 'on',
      SITE_URL: 'https://orgnote.example',
    });
    // With a backend, the backend owns signups: the site mails no confirmation.
    expect(publicConfigOf(config)).toEqual({
      webAppUrl: 'https://org-note.com',
      privacyContact: 'OrgNote <no-reply@orgnote.example>',
      confirmSignups: false,
      proofOfWork: false,
      backupRetentionDays: 7,
      addressRecipients: { names: [], unnamed: 0 },
      languages: ['en', 'ru'],
    });
    expect(publicConfigOf(loadConfig({ BACKUP_RETENTION_DAYS: '30' })).backupRetentionDays).toBe(
      30,
    );
    expect(() => loadConfig({ BACKUP_RETENTION_DAYS: '0' })).toThrow('BACKUP_RETENTION_DAYS');
    expect(
      publicConfigOf(
        loadConfig({
          CONFIRM_SIGNUPS: 'on',
          SITE_URL: 'https://orgnote.example',
          MAIL_TO_FILES: 'on',
        }),
      ).confirmSignups,
    ).toBe(true);
    expect(publicConfigOf(loadConfig({})).confirmSignups).toBe(false);
  });

  it('reads CONFIRM_SIGNUPS as on or off and CONFIRM_WITHIN_HOURS in hours', () => {
    expect(loadConfig({}).confirmSignups).toBe(false);
    expect(loadConfig({}).confirmWithinMs).toBe(72 * 3_600_000);
    expect(
      loadConfig({
        CONFIRM_SIGNUPS: 'on',
        SITE_URL: 'https://orgnote.example',
        SMTP_URL: 'smtp://127.0.0.1:2525',
        CONFIRM_WITHIN_HOURS: '1',
      }),
    ).toMatchObject({
      confirmSignups: true,
      confirmWithinMs: 3_600_000,
    });
    expect(() => loadConfig({ CONFIRM_SIGNUPS: 'on' })).toThrow(
      'CONFIRM_SIGNUPS: on needs SITE_URL',
    );
    expect(() => loadConfig({ CONFIRM_SIGNUPS: 'yes' })).toThrow('CONFIRM_SIGNUPS');
    expect(() => loadConfig({ CONFIRM_WITHIN_HOURS: '0' })).toThrow('CONFIRM_WITHIN_HOURS');
  });
});

describe('mail: sent, or kept as files on purpose', () => {
  const SITE_URL = 'https://orgnote.example';
  const problems = (env: Record<string, string>): string[] => {
    try {
      loadConfig(env);
      return [];
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as Error).message.split('\n').slice(1);
    }
  };

  it('refuses mail that would only be written to files, unless MAIL_TO_FILES=on says so', () => {
    expect(loadConfig({}).mailToFiles).toBe(false);
    expect(problems({ SITE_URL, CONFIRM_SIGNUPS: 'on' })).toEqual([
      expect.stringMatching(/^ {2}CONFIRM_SIGNUPS: on needs SMTP_URL \(or SMTP_URL_FILE\)/),
    ]);
    expect(problems({ SITE_URL, WELCOME_MAIL: 'on' })).toEqual([
      expect.stringMatching(/^ {2}WELCOME_MAIL: on needs SMTP_URL \(or SMTP_URL_FILE\)/),
    ]);
    expect(problems({ SITE_URL, CONFIRM_SIGNUPS: 'on', WELCOME_MAIL: 'on' })).toHaveLength(2);
    const ways: Record<string, string>[] = [
      { SMTP_URL: 'smtp://127.0.0.1:2525' },
      { MAIL_TO_FILES: 'on' },
    ];
    for (const mail of ways) {
      expect(problems({ SITE_URL, CONFIRM_SIGNUPS: 'on', WELCOME_MAIL: 'on', ...mail })).toEqual(
        [],
      );
    }
    // Invitations alone may go to files, as before: the operator's command says where each went.
    expect(problems({ SITE_URL })).toEqual([]);
  });

  it('takes SMTP_URL_FILE for SMTP_URL', () => {
    const file = path.join(tempDataDir(), 'smtp_url');
    fs.writeFileSync(file, 'smtp://127.0.0.1:2525\n');
    expect(problems({ SITE_URL, CONFIRM_SIGNUPS: 'on', SMTP_URL_FILE: file })).toEqual([]);
  });

  it('lets CONFIRM_SIGNUPS=on through with BACKEND_URL, where the site mails no confirmation', () => {
    const backend = { BACKEND_URL: 'http://internal:4000', SITE_URL };
    expect(problems({ ...backend, CONFIRM_SIGNUPS: 'on' })).toEqual([]);
  });

  it('refuses MAIL_TO_FILES=on beside SMTP_URL, which would send the mail all the same', () => {
    expect(
      problems({ MAIL_TO_FILES: 'on', SMTP_URL: 'smtp://mailer:s3cret@127.0.0.1:2525' }),
    ).toEqual([
      '  MAIL_TO_FILES: on keeps mail in DATA_DIR/mail instead of sending it, but SMTP_URL is ' +
        'set: unset one',
    ]);
    expect(() => loadConfig({ MAIL_TO_FILES: 'yes' })).toThrow('MAIL_TO_FILES');
  });
});

describe('DKIM settings', () => {
  const folder = tempDataDir();
  const write = (name: string, content: string) => {
    const file = path.join(folder, name);
    fs.writeFileSync(file, content, { mode: 0o600 });
    return file;
  };
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyFile = write(
    'dkim.pem',
    rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
  );
  const MAIL_FROM = 'OrgNote <invite@OrgNote.example>';

  it('reads the key once, and signs for the domain of MAIL_FROM unless DKIM_DOMAIN says otherwise', () => {
    const config = loadConfig({
      MAIL_FROM,
      DKIM_PRIVATE_KEY_FILE: keyFile,
      DKIM_SELECTOR: 'Mail2026',
    });
    expect(config.dkim).toEqual({
      domainName: 'orgnote.example',
      keySelector: 'mail2026',
      privateKey: expect.anything(),
    });
    expect(config.dkim!.privateKey.asymmetricKeyType).toBe('rsa');
    expect(
      loadConfig({
        MAIL_FROM,
        DKIM_PRIVATE_KEY_FILE: keyFile,
        DKIM_SELECTOR: 'mail2026',
        DKIM_DOMAIN: 'mail.orgnote.example',
      }).dkim,
    ).toMatchObject({
      domainName: 'mail.orgnote.example',
    });
    expect(loadConfig({}).dkim).toBeUndefined();
  });

  it('refuses a key file that is missing, naming the setting and never quoting a key', () => {
    const missing = path.join(folder, 'missing.pem');
    expect(() => loadConfig({ DKIM_PRIVATE_KEY_FILE: missing, DKIM_SELECTOR: 'mail' })).toThrow(
      `DKIM_PRIVATE_KEY_FILE: cannot read ${missing} (ENOENT)`,
    );
  });

  it.each([
    ['not a key', 'hello\n', 'is not a PEM private key'],
    [
      'a public key',
      rsa.publicKey.export({ type: 'spki', format: 'pem' }) as string,
      'is not a PEM private key',
    ],
    [
      'an Ed25519 key',
      generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
      'must hold an RSA key of at least 1024 bits (2048 advised)',
    ],
    [
      'a 512-bit RSA key',
      generateKeyPairSync('rsa', { modulusLength: 512 }).privateKey.export({
        type: 'pkcs8',
        format: 'pem',
      }) as string,
      'must hold an RSA key',
    ],
  ])('refuses a key file holding %s', (_what, content, message) => {
    const file = write(`${_what.replace(/\W+/g, '-')}.pem`, content);
    expect(() => loadConfig({ DKIM_PRIVATE_KEY_FILE: file, DKIM_SELECTOR: 'mail' })).toThrow(
      ConfigError,
    );
    expect(() => loadConfig({ DKIM_PRIVATE_KEY_FILE: file, DKIM_SELECTOR: 'mail' })).toThrow(
      `DKIM_PRIVATE_KEY_FILE: ${file} ${message}`,
    );
  });

  it('refuses only one of the key file and the selector, and a domain without them', () => {
    expect(() => loadConfig({ DKIM_PRIVATE_KEY_FILE: keyFile })).toThrow(
      'DKIM_SELECTOR: must be set with DKIM_PRIVATE_KEY_FILE',
    );
    expect(() => loadConfig({ DKIM_SELECTOR: 'mail' })).toThrow(
      'DKIM_PRIVATE_KEY_FILE: must be set with DKIM_SELECTOR',
    );
    expect(() => loadConfig({ DKIM_DOMAIN: 'orgnote.example' })).toThrow(
      'DKIM_DOMAIN: needs DKIM_PRIVATE_KEY_FILE and DKIM_SELECTOR',
    );
    expect(() => loadConfig({ DKIM_PRIVATE_KEY_FILE: keyFile, DKIM_SELECTOR: 'mail one' })).toThrow(
      'DKIM_SELECTOR: must be a DNS name',
    );
  });
});
