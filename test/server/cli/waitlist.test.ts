// The operator CLI, run as operators run it: a separate process on the real SQLite file.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { openStore } from '../../../server/store';
import { tempDataDir } from '../../support/config';

const CLI = path.resolve(__dirname, '../../../dist/server/waitlist.js');

function cli(dataDir: string, ...args: string[]) {
  const result = spawnSync(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH, DATA_DIR: dataDir }, encoding: 'utf8', timeout: 10_000 });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

function seeded() {
  const dataDir = tempDataDir();
  let t = Date.parse('2026-11-01T10:00:00.000Z');
  const store = openStore({ dataDir }, () => (t += 60_000));
  store.signups.add({ email: 'first@example.org', description: 'plain' });
  store.signups.add({ email: 'zoë@example.org', description: 'Says "hi", then\r\nleaves, ünïcödé 📝' });
  store.signups.add({ email: 'last@example.org', description: '' });
  store.outbox.enqueue({ path: '/api/subscriptions', fields: [['email', 'queued@example.org']], forwarded: {}, idempotencyKey: 'k-1' });
  store.close();
  return dataDir;
}

describe('npm run waitlist', () => {
  it('--help explains every command', () => {
    const { code, out } = cli(tempDataDir(), '--help');
    expect(code).toBe(0);
    for (const command of ['list', 'count', 'export', 'issue-key', 'outbox', 'backup', '--since']) expect(out).toContain(command);
  });

  it('count prints the number of signups', () => {
    expect(cli(seeded(), 'count')).toEqual({ code: 0, out: '3\n', err: '' });
  });

  it('list prints a table, newest first', () => {
    const { code, out } = cli(seeded(), 'list');
    expect(code).toBe(0);
    const lines = out.trim().split('\n');
    expect(lines[0]).toMatch(/^created_at\s+email\s+invited_at\s+activated_at\s+description$/);
    expect(lines.slice(2, 5).map((l) => l.split(/\s+/)[1])).toEqual(['last@example.org', 'zoë@example.org', 'first@example.org']);
    expect(out).toContain('3 signup(s)');
  });

  it('export writes RFC 4180 CSV with quoting for commas, quotes, newlines and unicode', () => {
    const { code, out } = cli(seeded(), 'export');
    expect(code).toBe(0);
    expect(out).toBe(
      'email,description,created_at,invited_at,activated_at\r\n' +
        'last@example.org,,2026-11-01T10:03:00.000Z,,\r\n' +
        'zoë@example.org,"Says ""hi"", then\r\nleaves, ünïcödé 📝",2026-11-01T10:02:00.000Z,,\r\n' +
        'first@example.org,plain,2026-11-01T10:01:00.000Z,,\r\n',
    );
  });

  it('export --since keeps only newer signups, and refuses a bad date', () => {
    const dataDir = seeded();
    const { out } = cli(dataDir, 'export', '--since', '2026-11-01T10:02:00Z');
    expect(out.startsWith('email,description,created_at,invited_at,activated_at\r\nlast@example.org,')).toBe(true);
    expect(out).toContain('\r\nzoë@example.org,');
    expect(out).not.toContain('first@example.org');
    const bad = cli(dataDir, 'export', '--since', 'someday');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('not a date');
  });

  it('issue-key prints a URL-safe key of at least 128 bits as the last line, which then activates', () => {
    const dataDir = seeded();
    const { code, out } = cli(dataDir, 'issue-key', 'ZOË@example.org');
    expect(code).toBe(0);
    const key = out.trim().split('\n').at(-1)!;
    expect(key).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(Buffer.from(key, 'base64url').length * 8).toBeGreaterThanOrEqual(128);
    const store = openStore({ dataDir });
    try {
      expect(store.subscriptions.activate('zoë@example.org', key)).toEqual({ outcome: 'active', email: 'zoë@example.org' });
    } finally {
      store.close();
    }
  });

  it('issue-key refuses an address that is not on the waitlist', () => {
    const { code, err } = cli(seeded(), 'issue-key', 'stranger@example.org');
    expect(code).toBe(1);
    expect(err).toContain('stranger@example.org is not on the waitlist');
  });

  it('outbox lists pending deliveries', () => {
    const { code, out } = cli(seeded(), 'outbox');
    expect(code).toBe(0);
    expect(out).toMatch(/^id\s+created_at\s+path\s+attempts\s+next_attempt_at\s+last_error$/m);
    expect(out).toContain('/api/subscriptions');
    expect(out).toContain('1 pending');
  });

  it('backup writes a consistent copy that opens with every signup', () => {
    const dataDir = seeded();
    const copyDir = tempDataDir();
    const { code, out } = cli(dataDir, 'backup', path.join(copyDir, 'waitlist.db'));
    expect(code).toBe(0);
    expect(out).toContain('Backed up 3 signup(s)');
    const copy = openStore({ dataDir: copyDir });
    try {
      expect(copy.signups.count()).toBe(3);
    } finally {
      copy.close();
    }
  });

  it('refuses an unknown command or a missing argument with usage help and exit code 2', () => {
    const unknown = cli(tempDataDir(), 'frobnicate');
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('unknown command: frobnicate');
    expect(cli(tempDataDir(), 'issue-key').code).toBe(2);
  });
});
