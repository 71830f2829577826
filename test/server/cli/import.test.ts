// `waitlist import` and `waitlist confirm --resend` on the real SQLite file: through the CLI's
// entry in this process for what it prints and its exit codes, and the built CLI in a process of
// its own, killed with SIGKILL in the middle of an import, for what a crash leaves behind.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { openSqliteStore } from '../../../server/store';
import { runCli, withStore } from '../../support/cli';
import { tempDataDir } from '../../support/config';
import {
  listmonkExport,
  mailchimpExport,
  mailchimpFileName,
} from '../../../scripts/lib/import-files';
import { until } from '../../support/wait';

const BUILT_CLI = path.resolve(__dirname, '../../../dist/server/waitlist.js');

const cli = (dataDir: string, args: string[], input?: string, env: Record<string, string> = {}) =>
  runCli({ DATA_DIR: dataDir, ...env }, args, { input });

/** A file of `rows` listmonk subscribers, written beside the data. */
function listmonkFile(dataDir: string, rows: number, name = 'subscribers.csv'): string {
  const file = path.join(dataDir, name);
  const start = Date.parse('2024-01-01T00:00:00.000Z');
  fs.writeFileSync(
    file,
    listmonkExport(
      Array.from({ length: rows }, (_, i) => ({
        email: `person${i}@example.org`,
        name: `Person ${i}, "P"`,
        status: 'enabled',
        createdAt: new Date(start + i * 1_000).toISOString(),
      })),
    ),
  );
  return file;
}

describe('waitlist import', () => {
  it('imports a Mailchimp file and prints the report', async () => {
    const dataDir = tempDataDir();
    const file = path.join(dataDir, mailchimpFileName('subscribed'));
    fs.writeFileSync(
      file,
      mailchimpExport('subscribed', [
        { email: 'ann@example.org', notes: 'a, "b"\nc', lastChanged: '2024-01-01T00:00:00Z' },
        { email: 'bob@exämple.org', lastChanged: '2024-01-02T00:00:00Z' },
      ]),
    );
    const { code, out, err } = await cli(dataDir, ['import', file]);
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toContain(`${file}: Mailchimp's audience export, 2 row(s)\n`);
    expect(out).toContain('  added: 2 (lines 2, 4)\n');
    expect(out).toContain('  already on the list, left as they are: 0\n');
    expect(await withStore(dataDir, (store) => store.signups.count())).toBe(2);
  });

  it('reads stdin for -, and --dry-run stores nothing', async () => {
    const dataDir = tempDataDir();
    const input = listmonkExport([
      { email: 'ann@example.org', status: 'enabled', createdAt: '2024-01-01T00:00:00Z' },
      { email: 'spam@example.org', status: 'blocklisted', createdAt: '2024-01-01T00:00:00Z' },
    ]);
    const dry = await cli(dataDir, ['import', '-', '--dry-run'], input);
    expect(dry.code).toBe(0);
    expect(dry.out).toContain("stdin: listmonk's subscriber export, 2 row(s)");
    expect(dry.out).toContain('  would be added: 1 (line 2)\n');
    expect(dry.out).toContain('  refused, blocklisted in listmonk (would be suppressed): 1');
    expect(dry.out).toContain('Dry run: nothing was stored.\n');
    await withStore(dataDir, async (store) => {
      expect(await store.signups.count()).toBe(0);
      expect(await store.suppressions.count()).toBe(0);
    });
    const real = await cli(dataDir, ['import', '-'], input);
    expect(real.out).toContain('  added: 1 (line 2)\n');
    expect(real.out).toContain('  refused, blocklisted in listmonk (now suppressed): 1 (line 3)');
    await withStore(dataDir, async (store) => {
      expect(await store.signups.count()).toBe(1);
      expect(await store.suppressions.has('spam@example.org')).toBe(true);
      const [entry] = await store.audit.list({ limit: 1 });
      expect(entry).toMatchObject({ account: 'cli', addresses: 1 });
      expect(entry.action).toMatch(/^import "stdin" \(listmonk\): 1 added/);
    });
  });

  it('exits 1 when rows were skipped as malformed, listing their lines', async () => {
    const dataDir = tempDataDir();
    const input = 'email,created_at\nok@example.org,\nnope,\nlate@example.org,yesterday\n';
    const { code, out } = await cli(
      dataDir,
      ['import', '-', '--map', 'created_at=created_at'],
      input,
    );
    expect(code).toBe(1);
    expect(out).toContain('  skipped, not an address: 1 (line 3)\n');
    expect(out).toContain('  skipped, a date that cannot be read: 1 (line 4)\n');
  });

  it('stops at a file that is not CSV with one line, storing nothing', async () => {
    const dataDir = tempDataDir();
    const file = path.join(dataDir, 'photo.png');
    fs.writeFileSync(file, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff]));
    const { code, out, err } = await cli(dataDir, ['import', file]);
    expect(code).toBe(1);
    expect(out).toBe('');
    expect(err).toBe(
      `waitlist: ${file} is not a CSV file this import reads: its first line is not UTF-8 ` +
        'text; nothing was stored\n',
    );
    expect(await withStore(dataDir, (store) => store.signups.count())).toBe(0);
  });

  it('says what is wrong with a missing file or a bad --map, before touching the store', async () => {
    const dataDir = tempDataDir();
    const missing = await cli(dataDir, ['import', path.join(dataDir, 'nope.csv')]);
    expect(missing).toMatchObject({ code: 1 });
    expect(missing.err).toMatch(/^waitlist: cannot read .*nope\.csv: no such file\n$/);
    const badMap = await cli(dataDir, ['import', '-', '--map', 'E-mail=mail'], 'E-mail\n');
    expect(badMap.code).toBe(2);
    expect(badMap.err).toContain('--map: unknown field: mail (one of email, description,');
    const noFile = await cli(dataDir, ['import']);
    expect(noFile.code).toBe(2);
    expect(noFile.err).toContain('import needs a CSV file (or - for stdin)');
  });

  it('loses nothing it reported added when killed with SIGKILL, and a second run completes it', async () => {
    const dataDir = tempDataDir();
    // The schema first, as the site makes it: the child then only imports.
    openSqliteStore({ dataDir }).db.close();
    const rows = 60_000;
    const file = listmonkFile(dataDir, rows);
    const child = spawn(process.execPath, [BUILT_CLI, 'import', file], {
      env: { PATH: process.env.PATH, DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (out += text));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const committed = /… committed to line (\d+): (\d+) added/;
    await until('the import reported its first batch', () => committed.test(out));
    child.kill('SIGKILL');
    await exited;
    const [, line, added] = committed.exec(out)!.map(Number);
    expect(out).not.toContain('row(s)\n'); // killed before its report

    await withStore(dataDir, async (store) => {
      const stored = new Set((await store.signups.list()).map((row) => row.email));
      expect(stored.size).toBeGreaterThanOrEqual(added);
      // Every row up to the reported line is there (line 2 is person0).
      for (let i = 0; i <= line - 2; i++) expect(stored.has(`person${i}@example.org`)).toBe(true);
      expect(stored.size).toBeLessThan(rows);
    });

    const again = await cli(dataDir, ['import', file]);
    expect(again.code).toBe(0);
    const count = (label: string) => Number(new RegExp(`  ${label}: (\\d+)`).exec(again.out)![1]);
    expect(count('added') + count('already on the list, left as they are')).toBe(rows);
    expect(count('added')).toBeGreaterThan(0);
    expect(await withStore(dataDir, (store) => store.signups.count())).toBe(rows);
  });
});

describe('waitlist confirm --resend', () => {
  const SITE = { SITE_URL: 'https://orgnote.example' };

  it('makes a confirmation due to every imported unconfirmed address, or to one', async () => {
    const dataDir = tempDataDir();
    const input = 'email\nann@example.org\nbob@example.org\n';
    await cli(dataDir, ['import', '-'], input, SITE);
    const one = await cli(dataDir, ['confirm', '--resend', 'ANN@example.org'], undefined, SITE);
    expect(one).toMatchObject({ code: 0, err: '' });
    expect(one.out).toBe(
      'ANN@example.org is due a confirmation mail: the running site writes and sends it\n',
    );
    const all = await cli(dataDir, ['confirm', '--resend'], undefined, SITE);
    expect(all.out).toBe(
      '1 imported address(es) due a confirmation mail: the running site writes and sends them ' +
        '(see: waitlist stats)\n',
    );
    const stats = await cli(dataDir, ['stats'], undefined, SITE);
    expect(stats.out).toContain('confirmations owed: 2');
    const unknown = await cli(dataDir, ['confirm', '--resend', 'zed@example.org'], undefined, SITE);
    expect(unknown).toMatchObject({ code: 1, out: 'zed@example.org is not on the waitlist\n' });
  });

  it('needs --resend, and SITE_URL for the link', async () => {
    const dataDir = tempDataDir();
    expect(await cli(dataDir, ['confirm'])).toMatchObject({ code: 2 });
    const noSite = await cli(dataDir, ['confirm', '--resend']);
    expect(noSite.code).toBe(1);
    expect(noSite.err).toContain('needs SITE_URL');
  });
});
