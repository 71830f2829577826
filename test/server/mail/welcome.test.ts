// The welcome mail's settings as an operator meets them at start-up: an operator's template that
// cannot be used stops the start with the file's name, never a silent fallback to the default.
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../../../server/config';
import { welcomeMailFor } from '../../../server/mail/welcome';
import { tempDataDir, testConfig } from '../../support/config';

const SITE_URL = 'https://orgnote.example';

/** A templates folder holding `files` (name → content). */
function templates(files: Record<string, string | Buffer>): string {
  const dir = path.join(tempDataDir(), 'templates');
  fs.mkdirSync(dir);
  for (const [name, content] of Object.entries(files))
    fs.writeFileSync(path.join(dir, name), content);
  return dir;
}

const GOOD = {
  'welcome.subject': 'Welcome',
  'welcome.txt': 'Hello {{email}}, leave at {{leaveUrl}}',
  'welcome.html': '<p>Hello {{email}}</p>',
};

/** The start-up error for these settings. */
function startupError(env: Record<string, string>): string {
  try {
    testConfig({ SITE_URL, WELCOME_MAIL: 'on', MAIL_TO_FILES: 'on', ...env });
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('the configuration was accepted');
}

describe('WELCOME_MAIL and MAIL_TEMPLATES_DIR', () => {
  it('is off by default: no welcome mail is written', () => {
    expect(testConfig({ SITE_URL }).welcomeMail).toBe(false);
    expect(welcomeMailFor(testConfig({ SITE_URL }))).toBeUndefined();
  });

  it('needs SITE_URL for its links, and the site keeping the signups', () => {
    expect(startupError({ SITE_URL: '' })).toContain('WELCOME_MAIL: on needs SITE_URL');
    expect(startupError({ BACKEND_URL: 'http://127.0.0.1:9' })).toContain(
      'WELCOME_MAIL: on needs the site to keep the signups',
    );
  });

  it('names the missing template file', () => {
    const dir = templates({ 'welcome.subject': 'Hi', 'welcome.txt': 'Hi' });
    const message = startupError({ MAIL_TEMPLATES_DIR: dir });
    expect(message).toContain(`MAIL_TEMPLATES_DIR: cannot read ${dir}/welcome.html (ENOENT)`);
  });

  it('names the file and the placeholder it does not know', () => {
    const dir = templates({ ...GOOD, 'welcome.html': '<p>{{unsubscribeUrl}}</p>' });
    expect(startupError({ MAIL_TEMPLATES_DIR: dir })).toContain(
      `${dir}/welcome.html: unknown placeholder {{unsubscribeUrl}} (known: siteUrl, leaveUrl, patreonUrl, email)`,
    );
  });

  it('refuses a subject over two lines, an empty file, a broken placeholder and bytes not UTF-8', () => {
    const cases: [Record<string, string | Buffer>, string][] = [
      [{ 'welcome.subject': 'Hi\nBcc: x@example.org' }, 'welcome.subject: must be one line'],
      [{ 'welcome.txt': ' \n' }, 'welcome.txt: is empty'],
      [{ 'welcome.txt': 'Leave: {{leave-url}}' }, 'welcome.txt: a "{{" that opens no placeholder'],
      [{ 'welcome.html': Buffer.from([0x3c, 0x70, 0x3e, 0xff]) }, 'welcome.html is not UTF-8'],
    ];
    for (const [files, expected] of cases)
      expect(startupError({ MAIL_TEMPLATES_DIR: templates({ ...GOOD, ...files }) })).toContain(
        expected,
      );
  });

  it("uses the operator's templates once they are all valid", () => {
    const config = testConfig({
      SITE_URL,
      WELCOME_MAIL: 'on',
      MAIL_TO_FILES: 'on',
      MAIL_TEMPLATES_DIR: templates(GOOD),
    });
    const mail = welcomeMailFor(config)!.compose('ann@example.org', 'token', 'en');
    expect(mail.subject).toBe('Welcome');
    expect(mail.text).toBe(`Hello ann@example.org, leave at ${SITE_URL}/leave?token=token`);
    expect(mail.html).toBe('<p>Hello ann@example.org</p>');
  });
});
