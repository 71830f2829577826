// npm run check:welcome-spam: the default welcome mail, in each of the site's languages, as the
// site sends it, scored by SpamAssassin (Debian's `spamassassin`, local rules only: no DNS, no
// network). The mail goes the site's own way: a signup in a temporary SQLite store owes it, the
// mail worker's store call writes it, and the mailer writes it as an .eml file, DKIM-signed with a
// throwaway key. Fails at a score of 2 or more, when a translation scores worse than the English
// mail, or when spamassassin is missing.
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../server/config';
import { sendClaimed } from '../server/mail/send';
import { createMailer, emlFile } from '../server/mail/transport';
import { welcomeMailFor } from '../server/mail/welcome';
import { openSqliteStore } from '../server/store';
import { DEFAULT_LANGUAGE, LANGUAGES, type Language } from '../shared/i18n/languages';

/** The score at which the check fails (issue 42: the welcome mail scores under 2). */
const MAX_SCORE = 2;

/** The default welcome mail for one address in `language`, as bytes on the wire. */
async function renderWelcome(work: string, language: Language): Promise<Buffer> {
  const keyFile = path.join(work, `dkim-${language}.pem`);
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  fs.writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
  const config = loadConfig({
    SITE_URL: 'https://org-note.com',
    MAIL_FROM: 'OrgNote <hello@org-note.com>',
    DATA_DIR: path.join(work, `data-${language}`),
    WELCOME_MAIL: 'on',
    // Written as an .eml file, then scored: nothing is sent.
    MAIL_TO_FILES: 'on',
    DKIM_PRIVATE_KEY_FILE: keyFile,
    DKIM_SELECTOR: 'mail',
    LOG_LEVEL: 'silent',
  });
  const store = openSqliteStore(config);
  const mailer = createMailer(config);
  try {
    await store.signups.add(
      { email: 'ann.lovelace@example.org', description: 'emacs' },
      { welcome: true },
    );
    // The mail of a signup made in `language`, whichever language the store hands the composer.
    const welcome = welcomeMailFor(config)!;
    const [item] = await store.addressLinks.mailWelcomes(1, {
      ...welcome,
      compose: (to, leaveToken) => welcome.compose(to, leaveToken, language),
    });
    const sent = await sendClaimed(store.mail, mailer, item);
    if (sent.outcome !== 'sent')
      throw new Error(`the welcome mail was not written: ${sent.outcome}`);
    const eml = fs.readFileSync(emlFile(config.dataDir, item.id));
    if (!/^DKIM-Signature: /m.test(eml.toString('latin1')))
      throw new Error('the welcome mail is not DKIM-signed');
    return eml;
  } finally {
    mailer.close();
    await store.close();
  }
}

/** SpamAssassin's score of one message, and the rules it hit; undefined when it cannot run. */
function score(eml: Buffer): { score: number; rules: string[] } | undefined {
  const run = spawnSync('spamassassin', ['-L', '-t'], { input: eml, encoding: 'utf8' });
  if (run.error) {
    console.error(`spamassassin cannot run (${run.error.message}): apt-get install spamassassin`);
    return undefined;
  }
  const status = /^X-Spam-Status: (?:Yes|No), score=(-?[\d.]+)/m.exec(run.stdout)?.[1];
  if (status === undefined) {
    console.error(`no X-Spam-Status in spamassassin's answer:\n${run.stderr}`);
    return undefined;
  }
  // The report's table: points, rule, description.
  const rules = [...run.stdout.matchAll(/^ *(-?\d+\.\d+) ([A-Z0-9_]+) /gm)].map(
    ([, points, rule]) => `${rule} ${points}`,
  );
  return { score: Number(status), rules };
}

async function main(): Promise<number> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'check-welcome-spam-'));
  try {
    const scores = new Map<Language, number>();
    for (const language of LANGUAGES) {
      const scored = score(await renderWelcome(work, language));
      if (!scored) return 1;
      scores.set(language, scored.score);
      console.log(
        `welcome mail (${language}): SpamAssassin score ${scored.score} (fails at ${MAX_SCORE})`,
      );
      console.log(`rules: ${scored.rules.join(', ') || 'none'}`);
    }
    const english = scores.get(DEFAULT_LANGUAGE)!;
    const worse = [...scores].filter(([, points]) => points > english);
    for (const [language, points] of worse)
      console.log(
        `the ${language} mail scores worse than the English one (${points} > ${english})`,
      );
    return worse.length === 0 && [...scores.values()].every((points) => points < MAX_SCORE) ? 0 : 1;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  (status) => process.exit(status),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
