// deploy/backup.sh, the kit's scheduled backups, run on this machine as its service runs it in a
// container: the built CLI as `waitlist` on PATH and a real SQLite DATA_DIR, or a real PostgreSQL
// that asks for a password and the real pg_dump. Only the folders and a BACKUP_INTERVAL of a
// second are the test's; test/image/backup.test.ts runs the same file in the kit itself.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { query, type PostgresServer } from '../../scripts/lib/launch/postgres';
import { openSqliteStore } from '../../server/store';
import { tempDataDir } from '../support/config';
import { describeWithPostgres, startPostgres } from '../support/postgres';
import { signupsIn } from '../support/sqlite-file';
import { until } from '../support/wait';

const ROOT = path.resolve(__dirname, '../..');
const SCRIPT = path.join(ROOT, 'deploy/backup.sh');
const CLI = path.join(ROOT, 'dist/server/waitlist.js');
const DATED = /^waitlist-\d{4}-\d\d-\d\dT\d{6}Z\.(db|dump)$/;
const STAMP = 'backup-last-success';
/** A copy starts a node process on a crowded machine: seconds each. */
const COPIES_DEADLINE_MS = 50_000;

interface Run {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

const running: Run[] = [];
afterEach(async () => {
  for (const run of running.splice(0)) {
    run.child.kill('SIGKILL');
    await run.exited;
  }
});

/** A folder of the test's, with `bin/` for the commands the script finds on PATH. */
function workspace() {
  const root = tempDataDir();
  const dirs = { data: 'data', folder: 'backups', bin: 'bin', tmp: 'tmp' } as const;
  const made = Object.fromEntries(
    Object.entries(dirs).map(([key, name]) => {
      fs.mkdirSync(path.join(root, name), { mode: 0o700 });
      return [key, path.join(root, name)];
    }),
  ) as Record<keyof typeof dirs, string>;
  return made;
}

function command(bin: string, name: string, script: string): void {
  fs.writeFileSync(path.join(bin, name), `#!/bin/sh\n${script}\n`, { mode: 0o755 });
}

/** The image's `waitlist` (scripts/docker/waitlist), pointed at the build. */
const realCli = (bin: string) => command(bin, 'waitlist', `exec node ${CLI} "$@"`);

function start(
  mode: 'sqlite' | 'postgres',
  dirs: ReturnType<typeof workspace>,
  env: Record<string, string>,
): Run {
  const child = spawn('bash', [SCRIPT, mode, dirs.folder], {
    env: {
      PATH: `${dirs.bin}:${process.env.PATH}`,
      DATA_DIR: dirs.data,
      TMPDIR: dirs.tmp,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout.on('data', (chunk) => (text += chunk));
  child.stderr.on('data', (chunk) => (text += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const run = { child, output: () => text, exited };
  running.push(run);
  return run;
}

/** SIGTERM, as `docker stop` sends it; the exit code, within Docker's 10 s before its SIGKILL. */
async function stop(run: Run): Promise<number | null> {
  run.child.kill('SIGTERM');
  let code: number | null | undefined;
  void run.exited.then((exit) => (code = exit));
  await until('the script exits after SIGTERM', () => code !== undefined, 10_000);
  return code!;
}

const count = (text: string, pattern: RegExp) => text.match(pattern)?.length ?? 0;
const listing = (folder: string) => fs.readdirSync(folder).sort();
const dated = (folder: string) => listing(folder).filter((name) => DATED.test(name));

async function waitlistWith(dataDir: string, emails: string[]): Promise<void> {
  const store = openSqliteStore({ dataDir });
  for (const email of emails) await store.signups.add({ email, description: '' });
  await store.close();
}

describe('the sqlite path', () => {
  const emails = ['ann@example.org', 'bob@example.org', 'cy@example.org'];

  it('copies at start and each interval, keeps the last N of its own, stamps each', async () => {
    const dirs = workspace();
    await waitlistWith(dirs.data, emails);
    realCli(dirs.bin);
    // An operator's own files in the folder, one of them named almost like a copy.
    fs.writeFileSync(path.join(dirs.folder, 'notes.txt'), 'mine\n');
    fs.writeFileSync(path.join(dirs.folder, 'waitlist-before-upgrade.db'), 'mine too\n');
    const startedAt = Math.floor(Date.now() / 1000);
    const run = start('sqlite', dirs, { BACKUP_INTERVAL: '1s', BACKUP_KEEP: '2' });

    const pruned = () => count(run.output(), /kept the last 2; removed waitlist-/g) >= 2;
    await until('four copies made, two of them pruned away', pruned, COPIES_DEADLINE_MS);
    expect(await stop(run)).toBe(0);
    expect(run.output()).toMatch(/backup: stopped\n$/);

    const made = [...run.output().matchAll(/^Backed up 3 signup\(s\) .* to (\S+)$/gm)];
    expect(made.length).toBeGreaterThanOrEqual(4);
    const newest = made.slice(-2).map((match) => path.basename(match[1]));
    expect(listing(dirs.folder)).toEqual(
      [...newest, 'notes.txt', 'waitlist-before-upgrade.db'].sort(),
    );
    for (const name of newest) {
      const file = path.join(dirs.folder, name);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(signupsIn(file)).toEqual(emails);
    }
    const stamp = Number(fs.readFileSync(path.join(dirs.data, STAMP), 'utf8'));
    expect(stamp).toBeGreaterThanOrEqual(startedAt);
    expect(stamp).toBeLessThanOrEqual(Date.now() / 1000);
  });

  it('waits for the site to create the database before the first copy', async () => {
    const dirs = workspace();
    realCli(dirs.bin);
    const run = start('sqlite', dirs, { BACKUP_INTERVAL: '1h' });
    const waiting = () => run.output().includes(`waiting for the site to create ${dirs.data}`);
    await until('the script says what it waits for', waiting);
    await waitlistWith(dirs.data, emails);
    await until('a copy once the database is there', () => dated(dirs.folder).length === 1);
    expect(await stop(run)).toBe(0);
    expect(run.output()).not.toMatch(/no copy this time/);
  });

  it('names the fix when it cannot write the folder, and copies once it can', async () => {
    const dirs = workspace();
    await waitlistWith(dirs.data, emails);
    realCli(dirs.bin);
    fs.rmdirSync(dirs.folder);
    const env = { BACKUP_INTERVAL: '1s', BACKUP_DIR: '/srv/orgnote-backups' };
    const run = start('sqlite', dirs, env);
    const said = `cannot write /srv/orgnote-backups (BACKUP_DIR, at ${dirs.folder} here) as uid`;
    await until('the script says why there is no copy', () => run.output().includes(said));
    expect(run.output()).toContain('install -d -o ');
    expect(run.output()).toContain(' -m 0700 /srv/orgnote-backups');
    expect(fs.existsSync(path.join(dirs.data, STAMP))).toBe(false);

    fs.mkdirSync(dirs.folder, { mode: 0o700 });
    await until('a copy on a later try', () => dated(dirs.folder).length > 0, COPIES_DEADLINE_MS);
    await until('the stamp after it', () => fs.existsSync(path.join(dirs.data, STAMP)));
    expect(await stop(run)).toBe(0);
  });

  it('removes no older copy and writes no stamp when the copy fails', async () => {
    const dirs = workspace();
    realCli(dirs.bin);
    fs.writeFileSync(path.join(dirs.data, 'waitlist.db'), 'not a database\n');
    const older = [
      'waitlist-2026-01-01T030000Z.db',
      'waitlist-2026-01-02T030000Z.db',
      'waitlist-2026-01-03T030000Z.db',
    ];
    for (const name of older) fs.writeFileSync(path.join(dirs.folder, name), 'a copy\n');
    const run = start('sqlite', dirs, { BACKUP_INTERVAL: '1s', BACKUP_KEEP: '1' });
    const failures = () => count(run.output(), /no copy this time; the next try in 1 s/g) >= 2;
    await until('two tries failed', failures, COPIES_DEADLINE_MS);
    expect(await stop(run)).toBe(0);
    expect(listing(dirs.folder)).toEqual(older);
    expect(fs.existsSync(path.join(dirs.data, STAMP))).toBe(false);
  });

  it('on SIGTERM during a copy: stops it, leaves no partial file, and exits 0', async () => {
    const dirs = workspace();
    await waitlistWith(dirs.data, emails);
    // A copy that hangs half-way, as a big database on a slow share does: its hidden file made.
    command(dirs.bin, 'waitlist', ': > "$(dirname "$2")/.$(basename "$2").partial"; exec sleep 60');
    const run = start('sqlite', dirs, { BACKUP_INTERVAL: '1h' });
    const partial = () => listing(dirs.folder).some((name) => name.endsWith('.partial'));
    await until('the copy is under way', partial);
    expect(await stop(run)).toBe(0);
    expect(listing(dirs.folder)).toEqual([]);
    expect(fs.existsSync(path.join(dirs.data, STAMP))).toBe(false);
  });

  it('on SIGTERM between copies: exits 0 at once, not after BACKUP_INTERVAL', async () => {
    const dirs = workspace();
    await waitlistWith(dirs.data, emails);
    realCli(dirs.bin);
    const run = start('sqlite', dirs, { BACKUP_INTERVAL: '24h' });
    await until('the first copy', () => fs.existsSync(path.join(dirs.data, STAMP)), 30_000);
    expect(await stop(run)).toBe(0);
    expect(dated(dirs.folder)).toHaveLength(1);
  });

  it.each([
    ['BACKUP_INTERVAL', 'daily', 'BACKUP_INTERVAL=daily is not a time: write 24h, 30m, 90s'],
    ['BACKUP_INTERVAL', '0', 'BACKUP_INTERVAL=0 is not a time'],
    ['BACKUP_KEEP', '0', 'BACKUP_KEEP=0 is not a number of copies'],
    ['BACKUP_KEEP', 'all', 'BACKUP_KEEP=all is not a number of copies'],
  ])('refuses %s=%s with one line saying what to write', async (name, value, said) => {
    const dirs = workspace();
    const run = start('sqlite', dirs, { [name]: value });
    expect(await run.exited).toBe(2);
    expect(run.output()).toContain(said);
    expect(listing(dirs.folder)).toEqual([]);
  });
});

describeWithPostgres('the postgres path', () => {
  let server: PostgresServer;
  /** Every character a URL must percent-encode, and one that is not ASCII. */
  const password = 'p@ss:w/rd %1\\ü?#';
  let url: string;

  beforeAll(async () => {
    server = await startPostgres();
    const database = await server.createDatabase();
    const name = path.basename(database);
    // This role alone must give its password (scram), so a password garbled on the way fails.
    const hba = path.join(server.dataDir, 'pg_hba.conf');
    const rules = fs.readFileSync(hba, 'utf8');
    fs.writeFileSync(hba, `host all orgnote_backup 127.0.0.1/32 scram-sha-256\n${rules}`);
    await query(server.url, 'SELECT pg_reload_conf()');
    await query(server.url, `CREATE ROLE orgnote_backup LOGIN PASSWORD '${password}'`);
    await query(database, 'CREATE TABLE signups (email text)');
    await query(database, "INSERT INTO signups VALUES ('pg-kept@example.org')");
    await query(database, 'GRANT SELECT ON signups TO orgnote_backup');
    const credentials = `orgnote_backup:${encodeURIComponent(password)}`;
    url = `postgres://${credentials}@127.0.0.1:${server.port}/${name}`;
  });

  afterAll(() => server?.close());

  it('pg_dump -Fc with the password of DATABASE_URL_FILE, never on its command line', async () => {
    const dirs = workspace();
    const secrets = tempDataDir();
    fs.writeFileSync(path.join(secrets, 'database_url'), `${url}\n`, { mode: 0o600 });
    // The real pg_dump, its command line kept where the test can read it.
    const argv = path.join(dirs.tmp, 'pg_dump.argv');
    command(dirs.bin, 'pg_dump', `printf '%s\\n' "$@" > ${argv}; exec /usr/bin/pg_dump "$@"`);
    const env = { BACKUP_INTERVAL: '1h', DATABASE_URL_FILE: path.join(secrets, 'database_url') };
    const run = start('postgres', dirs, env);
    await until('a dump', () => fs.existsSync(path.join(dirs.data, STAMP)), 30_000);
    expect(await stop(run)).toBe(0);

    const [dump] = dated(dirs.folder);
    expect(dump).toMatch(/\.dump$/);
    expect(listing(dirs.folder)).toEqual([dump]);
    const file = path.join(dirs.folder, dump);
    expect(fs.readFileSync(file).subarray(0, 5).toString()).toBe('PGDMP');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const script = await restoreScript(file);
    expect(script).toContain('pg-kept@example.org');
    expect(run.output()).toContain(`pg_dump wrote ${dirs.folder}/${dump}`);

    const commandLine = fs.readFileSync(argv, 'utf8');
    expect(commandLine).toContain(`--dbname=postgres://orgnote_backup@127.0.0.1:${server.port}/`);
    for (const secret of [password, encodeURIComponent(password), 'p@ss', 'p%40ss'])
      expect(commandLine).not.toContain(secret);
    expect(run.output()).not.toContain('p%40ss');
  });
});

/** What pg_restore would run to restore the dump, as SQL text. */
function restoreScript(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('pg_restore', ['--file=-', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (chunk) => (text += chunk));
    child.once('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`exit ${code}`))));
  });
}
