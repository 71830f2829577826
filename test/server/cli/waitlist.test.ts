// The operator CLI on the real SQLite file, through its entry in this process; the built CLI in a
// process of its own for a count and for the usage errors' exit status.
import fs from 'node:fs';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { openSqliteStore } from '../../../server/store';
import { runBuiltCli, runCli } from '../../support/cli';
import { tempDataDir } from '../../support/config';
import { queuedSignup } from '../../support/stores';

const cliWith = (env: Record<string, string>, dataDir: string, ...args: string[]) =>
  runCli({ DATA_DIR: dataDir, ...env }, args);

const cli = (dataDir: string, ...args: string[]) => cliWith({}, dataDir, ...args);

async function seeded() {
  const dataDir = tempDataDir();
  let t = Date.parse('2026-11-01T10:00:00.000Z');
  const store = openSqliteStore({ dataDir }, () => (t += 60_000));
  await store.signups.add({ email: 'first@example.org', description: 'plain' });
  await store.signups.add({
    email: 'zoë@example.org',
    description: 'Says "hi", then\r\nleaves, ünïcödé 📝',
  });
  await store.signups.add({ email: 'last@example.org', description: '' });
  await store.outbox.enqueue(queuedSignup('queued@example.org'));
  void store.close();
  return dataDir;
}

/** What the store answers to an activation with `key`, as the site would ask it. */
async function activate(dataDir: string, email: string, key: string) {
  const store = openSqliteStore({ dataDir });
  try {
    return await store.subscriptions.activate(email, key);
  } finally {
    void store.close();
  }
}

describe('npm run waitlist', () => {
  it('--help explains every command', async () => {
    const { code, out } = await cli(tempDataDir(), '--help');
    expect(code).toBe(0);
    const commands = 'list count stats export invite mail remove issue-key outbox backup';
    const options = '--since --next --again --dry-run';
    for (const word of `${commands} ${options}`.split(' ')) expect(out).toContain(word);
  });

  it('count prints the number of signups', async () => {
    const dataDir = await seeded();
    expect(runBuiltCli({ DATA_DIR: dataDir }, ['count'])).toEqual({ code: 0, out: '3\n', err: '' });
  });

  it('list prints a table, newest first', async () => {
    const { code, out } = await cli(await seeded(), 'list');
    expect(code).toBe(0);
    const lines = out.trim().split('\n');
    expect(lines[0]).toMatch(
      /^created_at\s+email\s+state\s+confirmed_at\s+invited_at\s+activated_at\s+description$/,
    );
    expect(lines.slice(2, 5).map((l) => l.split(/\s+/)[1])).toEqual([
      'last@example.org',
      'zoë@example.org',
      'first@example.org',
    ]);
    expect(out).toContain('3 signup(s)');
  });

  it('export writes RFC 4180 CSV, every field quoted, with commas, quotes, newlines and unicode', async () => {
    const { code, out } = await cli(await seeded(), 'export');
    expect(code).toBe(0);
    expect(out).toBe(
      '"email","description","created_at","invited_at","activated_at","confirmed_at","state","language"\r\n' +
        '"last@example.org","","2026-11-01T10:03:00.000Z","","","2026-11-01T10:03:00.000Z","waitlisted","en"\r\n' +
        '"zoë@example.org","Says ""hi"", then\r\nleaves, ünïcödé 📝","2026-11-01T10:02:00.000Z","","","2026-11-01T10:02:00.000Z","waitlisted","en"\r\n' +
        '"first@example.org","plain","2026-11-01T10:01:00.000Z","","","2026-11-01T10:01:00.000Z","waitlisted","en"\r\n',
    );
  });

  it('export --since keeps only newer signups, and refuses a bad date', async () => {
    const dataDir = await seeded();
    const { out } = await cli(dataDir, 'export', '--since', '2026-11-01T10:02:00Z');
    expect(
      out.startsWith(
        '"email","description","created_at","invited_at","activated_at","confirmed_at","state","language"\r\n"last@example.org",',
      ),
    ).toBe(true);
    expect(out).toContain('\r\n"zoë@example.org",');
    expect(out).not.toContain('first@example.org');
    const bad = await cli(dataDir, 'export', '--since', 'someday');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('not a date');
  });

  it('issue-key prints a URL-safe key of at least 128 bits as the last line, which then activates', async () => {
    const dataDir = await seeded();
    const { code, out } = await cli(dataDir, 'issue-key', 'ZOË@example.org');
    expect(code).toBe(0);
    const key = out.trim().split('\n').at(-1)!;
    expect(key).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(Buffer.from(key, 'base64url').length * 8).toBeGreaterThanOrEqual(128);
    expect(await activate(dataDir, 'zoë@example.org', key)).toEqual({
      outcome: 'active',
      email: 'zoë@example.org',
    });
  });

  it('issue-key refuses an address that is not on the waitlist', async () => {
    const { code, err } = await cli(await seeded(), 'issue-key', 'stranger@example.org');
    expect(code).toBe(1);
    expect(err).toContain('stranger@example.org is not on the waitlist');
  });

  it('outbox lists pending deliveries', async () => {
    const { code, out } = await cli(await seeded(), 'outbox');
    expect(code).toBe(0);
    expect(out).toMatch(
      /^id\s+created_at\s+path\s+state\s+attempts\s+next_attempt_at\s+last_error$/m,
    );
    expect(out).toContain('/api/subscriptions');
    expect(out).toContain('1 pending, 0 dead');
  });

  it('backup writes a consistent copy that opens with every signup', async () => {
    const dataDir = await seeded();
    const copyDir = tempDataDir();
    const { code, out } = await cli(dataDir, 'backup', path.join(copyDir, 'waitlist.db'));
    expect(code).toBe(0);
    expect(out).toContain('Backed up 3 signup(s)');
    const copy = openSqliteStore({ dataDir: copyDir });
    try {
      expect(await copy.signups.count()).toBe(3);
    } finally {
      void copy.close();
    }
  });

  it('refuses an unknown command or a missing argument with usage help and exit code 2', () => {
    const unknown = runBuiltCli({ DATA_DIR: tempDataDir() }, ['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('unknown command: frobnicate');
    expect(runBuiltCli({ DATA_DIR: tempDataDir() }, ['issue-key']).code).toBe(2);
  });

  describe('invitations without SMTP_URL (the embedded default)', () => {
    const invite = (dataDir: string, ...args: string[]) =>
      cliWith({ SITE_URL: 'https://orgnote.example/' }, dataDir, 'invite', ...args);

    it('writes each invitation as an .eml file that parses, and says where', async () => {
      const dataDir = await seeded();
      const { code, out } = await invite(dataDir, '--next', '2');
      expect(code).toBe(0);
      expect(out).toMatch(/^sent\s+first@example\.org$/m);
      expect(out).toMatch(/^sent\s+zoë@example\.org$/m);
      expect(out).toContain(`mail written as .eml files to ${path.join(dataDir, 'mail')}`);
      const files = fs.readdirSync(path.join(dataDir, 'mail')).sort();
      expect(files).toEqual(['1.eml', '2.eml']);
      const raw = fs.readFileSync(path.join(dataDir, 'mail', '2.eml'));
      expect(raw.includes('\r\n')).toBe(true); // RFC 5322 line ends
      const mail = await simpleParser(raw);
      expect(mail.to && 'text' in mail.to ? mail.to.text : '').toBe('zoë@example.org');
      expect(mail.from?.value).toEqual([{ name: 'OrgNote', address: 'no-reply@orgnote.example' }]);
      expect(mail.subject).toBe('Your OrgNote activation key');
      expect(mail.text).toContain('https://orgnote.example/activate?email=zo%C3%AB%40example.org');
      const key = mail.text!.split('\n').find((line) => /^[A-Za-z0-9_-]{32}$/.test(line))!;
      expect(await activate(dataDir, 'ZOË@example.org', key)).toEqual({
        outcome: 'active',
        email: 'zoë@example.org',
      });
    });

    it('stats counts signups by state; count stays the bare total', async () => {
      const dataDir = await seeded();
      await invite(dataDir, 'first@example.org', 'last@example.org');
      await cli(dataDir, 'issue-key', 'zoë@example.org');
      const store = openSqliteStore({ dataDir });
      const key = await store.subscriptions.issueKey('last@example.org');
      await store.subscriptions.activate('last@example.org', key);
      void store.close();
      const { code, out } = await cli(dataDir, 'stats');
      expect(code).toBe(0);
      expect(out).toMatch(/^unconfirmed\s+0$/m);
      expect(out).toMatch(/^waitlisted\s+0$/m);
      expect(out).toMatch(/^undeliverable\s+0$/m);
      expect(out).toMatch(/^invited\s+2$/m);
      expect(out).toMatch(/^activated\s+1$/m);
      expect(out).toMatch(/^total\s+3$/m);
      expect(out).toContain('mail: 0 queued, 0 failed, 0 dead, 2 sent');
      expect((await cli(dataDir, 'count')).out).toBe('3\n');
      const listed = (await cli(dataDir, 'list')).out.split('\n');
      const last = listed.find((line) => line.includes('last@example.org'))!;
      expect(last.match(/\d{4}-\d\d-\d\dT[\d:.]+Z/g)).toHaveLength(4); // created, confirmed, invited, activated
      expect(last).toMatch(/\bactivated\b/);
      const exported = (await cli(dataDir, 'export')).out.split('\r\n');
      expect(exported.find((line) => line.startsWith('"last@example.org",'))).toMatch(
        /^"last@example\.org","","[^,]+Z","[^,]+Z","[^,]+Z","[^,]+Z","activated","en"$/,
      );
    });

    it('remove erases the address with its keys, mail and .eml file, and says what it removed', async () => {
      const dataDir = await seeded();
      await invite(dataDir, 'first@example.org');
      await invite(dataDir, '--again', 'first@example.org');
      expect(fs.readdirSync(path.join(dataDir, 'mail'))).toHaveLength(2);
      const { code, out } = await cli(dataDir, 'remove', 'FIRST@example.org');
      expect(code).toBe(0);
      expect(out).toBe(
        'Removed FIRST@example.org: the signup, 2 activation key(s), 2 mail(s) and 2 .eml file(s), 0 outbox item(s)\n',
      );
      expect(fs.readdirSync(path.join(dataDir, 'mail'))).toEqual([]);
      expect((await cli(dataDir, 'count')).out).toBe('2\n');
      expect((await cli(dataDir, 'export')).out).not.toContain('first@example.org');
      // Removed, so suppressed: an import will not add it again.
      expect(await cli(dataDir, 'suppressed', 'count')).toMatchObject({ code: 0, out: '1\n' });
      const db = openSqliteStore({ dataDir });
      try {
        expect(
          db.db
            .prepare(
              "SELECT COUNT(*) AS n FROM activation_keys WHERE email_key = 'first@example.org'",
            )
            .get(),
        ).toEqual({ n: 0 });
      } finally {
        void db.close();
      }
    });

    it('remove also drops a queued outbox signup of that address; an unknown address exits 1', async () => {
      const dataDir = await seeded();
      expect(await cli(dataDir, 'remove', 'Queued@example.org')).toEqual({
        code: 0,
        out: 'Removed Queued@example.org: no signup, 0 activation key(s), 0 mail(s), 1 outbox item(s)\n',
        err: '',
      });
      expect((await cli(dataDir, 'outbox')).out).toContain('0 pending');
      expect(await cli(dataDir, 'remove', 'nobody@example.org')).toMatchObject({
        code: 1,
        out: 'Nothing stored for nobody@example.org\n',
      });
      expect((await cli(dataDir, 'remove')).code).toBe(2);
    });

    it('mail lists nothing of a body or a key', async () => {
      const dataDir = await seeded();
      await invite(dataDir, 'first@example.org');
      const { code, out } = await cli(dataDir, 'mail');
      expect(code).toBe(0);
      expect(out).toContain('0 queued, 0 failed');
      const eml = fs.readFileSync(path.join(dataDir, 'mail', '1.eml'), 'utf8');
      const key = eml.split('\r\n').find((line) => /^[A-Za-z0-9_-]{32}$/.test(line))!;
      expect(out).not.toContain(key);
    });

    it('refuses without SITE_URL, and with BACKEND_URL, explaining why', async () => {
      const dataDir = await seeded();
      const noSite = await cli(dataDir, 'invite', 'first@example.org');
      expect(noSite.code).toBe(1);
      expect(noSite.err).toContain('invite needs SITE_URL');
      const backend = await cliWith(
        { SITE_URL: 'https://orgnote.example', BACKEND_URL: 'http://127.0.0.1:9' },
        dataDir,
        'invite',
        'first@example.org',
      );
      expect(backend.code).toBe(1);
      expect(backend.err).toContain('BACKEND_URL is set');
      expect(fs.existsSync(path.join(dataDir, 'mail'))).toBe(false);
    });
  });
});
