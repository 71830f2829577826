// Secrets from files: every secret setting may be given as `<VARIABLE>_FILE`, a path to a file
// holding it (a Docker or Compose secret), as the official images read theirs. Real files in the
// run's temp folder; then the built server and CLI with all three secrets given that way, against
// a real PostgreSQL and a real SMTP server that demands the password from the file.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startSmtpServer } from '../../scripts/lib/launch/smtp';
import { ConfigError, fileVariable, loadConfig, SETTINGS } from '../../server/config';
import { runCli } from '../support/cli';
import { tempDataDir } from '../support/config';
import { describeWithPostgres } from '../support/postgres';
import { replicasOnSharedPostgres, send, signUp } from '../support/replicas';

const SERVER = path.resolve(__dirname, '../../dist/server/index.js');

/** A valid value for each secret; a secret declared without one here fails the first test. */
const SAMPLES: Record<string, string> = {
  SMTP_URL: 'smtp://mailer:file-s3cret-pass@smtp.example.com:587',
  SUBSCRIPTION_API_TOKEN: 'file-token-0123456789abcdef',
  DATABASE_URL: 'postgres://site:file-db-pass@db.internal:5432/orgnote',
  BOUNCE_POSTMARK_AUTH: 'orgnote:file-postmark-pass',
  BOUNCE_MAILGUN_SIGNING_KEY: 'key-file0mailgun0signing0key0',
  BOUNCE_RESEND_SECRET: 'whsec_ZmlsZS1yZXNlbmQtc2VjcmV0LWJ5dGVz',
};

type Key = keyof typeof SETTINGS;
const isSecret = ([, declared]: [string, object]) => 'secret' in declared && !!declared.secret;
const SECRETS = (Object.entries(SETTINGS) as [Key, { env: string }][]).filter(isSecret);

const folder = tempDataDir();
let written = 0;
/** A file in the temp folder holding `content`, readable by its owner only, as a secret is. */
function secretFile(content: string): string {
  const file = path.join(folder, `secret-${++written}`);
  fs.writeFileSync(file, content, { mode: 0o600 });
  return file;
}

/** The message loadConfig refuses `env` with. */
function refusal(env: NodeJS.ProcessEnv): string {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('loadConfig accepted the settings');
}

describe('secrets from files', () => {
  it('are SMTP_URL, SUBSCRIPTION_API_TOKEN, DATABASE_URL and the bounce keys, read from a file as if set', () => {
    expect(SECRETS.map(([, declared]) => declared.env).sort()).toEqual(Object.keys(SAMPLES).sort());
    for (const [key, declared] of SECRETS) {
      const value = SAMPLES[declared.env];
      expect(loadConfig({ [declared.env]: value })[key]).toBe(value);
      // `echo value > file` leaves a newline; a file written without one reads the same.
      for (const content of [`${value}\n`, value, `${value}\r\n`]) {
        const variable = fileVariable(declared);
        const read = loadConfig({ [variable]: secretFile(content) })[key];
        expect({ variable, read }).toEqual({ variable, read: value });
      }
    }
  });

  it('take a path relative to the working folder, and an empty _FILE counts as unset', () => {
    const token = SAMPLES.SUBSCRIPTION_API_TOKEN;
    const relative = path.relative(process.cwd(), secretFile(`${token}\n`));
    expect(loadConfig({ SUBSCRIPTION_API_TOKEN_FILE: relative }).subscriptionApiToken).toBe(token);
    const emptyFileForm = { SUBSCRIPTION_API_TOKEN: token, SUBSCRIPTION_API_TOKEN_FILE: '' };
    expect(loadConfig(emptyFileForm).subscriptionApiToken).toBe(token);
    expect(loadConfig({ SMTP_URL_FILE: '' }).smtpUrl).toBeUndefined();
  });

  it('refuse a value and its _FILE form set together, naming both and quoting neither', () => {
    for (const [, declared] of SECRETS) {
      const value = SAMPLES[declared.env];
      const file = secretFile(`${value}\n`);
      const variable = fileVariable(declared);
      const message = refusal({ [declared.env]: value, [variable]: file });
      expect(message).toContain(`${declared.env} and ${variable}: set one of them, not both`);
      expect(message).not.toContain(value);
    }
  });

  it('refuse a missing, unreadable or empty file, naming the _FILE variable and the path', () => {
    const missing = path.join(folder, 'no-such-secret');
    const missingFile = refusal({ DATABASE_URL_FILE: missing });
    expect(missingFile).toContain(`DATABASE_URL_FILE: cannot read ${missing} (ENOENT)`);
    const aFolder = refusal({ SMTP_URL_FILE: folder });
    expect(aFolder).toContain(`SMTP_URL_FILE: cannot read ${folder} (EISDIR)`);
    const empty = secretFile('\n');
    const emptyFile = refusal({ SUBSCRIPTION_API_TOKEN_FILE: empty });
    expect(emptyFile).toContain(`SUBSCRIPTION_API_TOKEN_FILE: ${empty} is empty`);
  });

  it('refuse a file holding an invalid value, naming the variables, never the content', () => {
    const cases = [
      ['SMTP_URL', 'http://mailer:leaked-smtp-pass@smtp.example.com'],
      ['DATABASE_URL', 'mysql://site:leaked-db-pass@db/orgnote'],
      ['SUBSCRIPTION_API_TOKEN', 'leaked token with spaces'],
    ];
    for (const [name, content] of cases) {
      const message = refusal({ [`${name}_FILE`]: secretFile(`${content}\n`) });
      expect(message).toMatch(new RegExp(`^  ${name} \\(from ${name}_FILE\\): must`, 'm'));
      expect(message).not.toMatch(/leaked/);
    }
  });

  it('exist only for secrets: a _FILE form of another setting is not read', () => {
    expect(loadConfig({ PORT_FILE: secretFile('8080\n') }).port).toBe(3000);
  });
});

describeWithPostgres('the built server and CLI with every secret from a file', () => {
  const replicas = replicasOnSharedPostgres();

  // Each secret shows it arrived: PostgreSQL holds the signup, the SMTP server took its login,
  // the token opens its route. None of them is in the process's environment.
  it('use all three, and keep them out of the environment', async () => {
    const smtp = await startSmtpServer({ auth: { user: 'mailer', pass: 'smtp-pass-from-file' } });
    try {
      const databaseUrl = await replicas.createDatabase();
      const token = 'token-from-file-5d1c2e8f0a9b';
      const secrets = {
        SMTP_URL_FILE: secretFile(`${smtp.url}\n`),
        DATABASE_URL_FILE: secretFile(`${databaseUrl}\n`),
        SUBSCRIPTION_API_TOKEN_FILE: secretFile(`${token}\n`),
      };
      expect(smtp.url).toContain('smtp-pass-from-file');
      const site = { SITE_URL: 'https://site.example', CONFIRM_SIGNUPS: 'on', LOG_LEVEL: 'warn' };
      const [server] = await replicas.start(1, { ...secrets, ...site });

      expect((await signUp(server, 'file.secrets@example.org')).status).toBe(201);
      // The confirmation mail went through a server that refuses any other login.
      const [mail] = await smtp.waitFor(1);
      expect(mail.envelope.to).toEqual(['file.secrets@example.org']);
      const cliEnv = { DATA_DIR: tempDataDir(), LOG_LEVEL: 'warn' };
      const counted = await runCli({ ...cliEnv, DATABASE_URL_FILE: secrets.DATABASE_URL_FILE }, [
        'count',
      ]);
      expect(counted).toMatchObject({ code: 0, out: '1\n' });

      const info = (auth: string) => {
        const headers = { authorization: `Token ${auth}` };
        return send(server, '/api/subscription-info/github/nobody', { headers });
      };
      expect((await info('not-the-token-from-the-file')).status).toBe(401);
      expect((await info(token)).status).not.toBe(401);

      // What `docker inspect` and /proc show of the process: the paths, never the secrets.
      const environ = fs.readFileSync(`/proc/${server.child.pid}/environ`, 'utf8');
      expect(environ).toContain(`DATABASE_URL_FILE=${secrets.DATABASE_URL_FILE}`);
      for (const secret of ['smtp-pass-from-file', databaseUrl, token]) {
        expect(environ).not.toContain(secret);
      }
      expect(server.output()).not.toMatch(/smtp-pass-from-file|token-from-file/);
    } finally {
      await smtp.close();
    }
  });

  it('stops at start-up with one line naming both forms of a secret set twice', async () => {
    const smtpUrl = 'smtp://mailer:twice-s3cret@127.0.0.1:2525';
    const twice = { SMTP_URL: smtpUrl, SMTP_URL_FILE: secretFile(`${smtpUrl}\n`) };
    const child = spawn(process.execPath, [SERVER], {
      env: { PATH: process.env.PATH, DATA_DIR: tempDataDir(), PORT: '0', ...twice },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    const line = '  SMTP_URL and SMTP_URL_FILE: set one of them, not both';
    expect(output).toBe(`Invalid configuration:\n${line}\n`);
  });
});
