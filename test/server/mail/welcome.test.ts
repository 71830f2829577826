// The welcome mail's settings as an operator meets them at start-up: an operator's template that
// cannot be used stops the start with the file's name, never a silent fallback to the default.
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../../../server/config';
import { welcomeMailFor } from '../../../server/mail/welcome';
import { tempDataDir, testConfig } from '../../support/config';

const SITE_URL = 'https://orgnote.example';

/** A templates folder holding `files` (path, such as 'ru/welcome.txt' → content). */
function templates(files: Record<string, string | Buffer>): string {
  const dir = path.join(tempDataDir(), 'templates');
  fs.mkdirSync(dir);
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), content);
  }
  return dir;
}

/** GOOD's files in the folder of `language`, their words marked with it. */
const goodIn = (language: string) =>
  Object.fromEntries(
    Object.entries(GOOD).map(([name, content]) => [
      `${language}/${name}`,
      content.replace('Hello', `Hello (${language})`).replace('Welcome', `Welcome (${language})`),
    ]),
  );

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

describe('MAIL_TEMPLATES_DIR with a folder a language', () => {
  const compose = (dir: string, language: 'en' | 'ru', env: Record<string, string> = {}) =>
    welcomeMailFor(
      testConfig({
        SITE_URL,
        WELCOME_MAIL: 'on',
        MAIL_TO_FILES: 'on',
        MAIL_TEMPLATES_DIR: dir,
        ...env,
      }),
    )!.compose('ann@example.org', 'token', language);

  it("mails each language in the operator's wording of it, with the language's links", () => {
    const dir = templates({ ...goodIn('en'), ...goodIn('ru') });
    const english = compose(dir, 'en');
    expect(english.subject).toBe('Welcome (en)');
    expect(english.text).toBe(`Hello (en) ann@example.org, leave at ${SITE_URL}/leave?token=token`);
    const russian = compose(dir, 'ru');
    expect(russian.subject).toBe('Welcome (ru)');
    expect(russian.text).toBe(
      `Hello (ru) ann@example.org, leave at ${SITE_URL}/ru/leave?token=token`,
    );
    expect(russian.html).toBe('<p>Hello (ru) ann@example.org</p>');
  });

  it('gives a language without its folder the default wording of that language', () => {
    const dir = templates(goodIn('en'));
    expect(compose(dir, 'en').subject).toBe('Welcome (en)');
    const russian = compose(dir, 'ru');
    expect(russian.subject).toBe('Вы в листе ожидания OrgNote');
    expect(russian.text).toContain(`${SITE_URL}/ru/leave?token=token`);
    expect(compose(templates(goodIn('ru')), 'en').subject).toBe('Welcome to the OrgNote waitlist');
  });

  it('reads a flat folder as English, as before: Russian keeps its default wording', () => {
    const dir = templates(GOOD);
    expect(compose(dir, 'en').subject).toBe('Welcome');
    expect(compose(dir, 'ru').subject).toBe('Вы в листе ожидания OrgNote');
    // A folder of the operator's own beside the flat files is theirs, as it was.
    expect(compose(templates({ ...GOOD, 'drafts/welcome.txt': 'Hi' }), 'en').subject).toBe(
      'Welcome',
    );
  });

  it("with LANGUAGES=en, a Russian signup gets the operator's English", () => {
    const dir = templates({ ...goodIn('en'), ...goodIn('ru') });
    expect(compose(dir, 'ru', { LANGUAGES: 'en' }).text).toBe(
      `Hello (en) ann@example.org, leave at ${SITE_URL}/leave?token=token`,
    );
  });

  it('names the file a language folder lacks, or the one at fault in it', () => {
    const { 'ru/welcome.html': _html, ...short } = { ...goodIn('en'), ...goodIn('ru') };
    const dir = templates(short);
    expect(startupError({ MAIL_TEMPLATES_DIR: dir })).toContain(
      `MAIL_TEMPLATES_DIR: cannot read ${dir}/ru/welcome.html (ENOENT)`,
    );
    const wrong = templates({ ...goodIn('ru'), 'ru/welcome.txt': 'Выйти: {{leaveLink}}' });
    expect(startupError({ MAIL_TEMPLATES_DIR: wrong })).toContain(
      `${wrong}/ru/welcome.txt: unknown placeholder {{leaveLink}}`,
    );
  });

  it('refuses both layouts at once, and a folder that names no language of the site', () => {
    const both = templates({ ...GOOD, ...goodIn('ru') });
    expect(startupError({ MAIL_TEMPLATES_DIR: both })).toContain(
      `MAIL_TEMPLATES_DIR: ${both} holds both welcome.`,
    );
    const german = templates({ ...goodIn('ru'), ...goodIn('de') });
    expect(startupError({ MAIL_TEMPLATES_DIR: german })).toContain(
      `MAIL_TEMPLATES_DIR: ${german}/de is no language of the site: use one folder a language ` +
        '(en/, ru/)',
    );
  });
});
