// waitlist backup and waitlist restore, as an operator runs them beside the real site: a backup
// only its owner reads, and a restore that refuses while the site has the database open, checks
// the file it is given, and leaves no -wal or -shm of the replaced database behind.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import Database from 'better-sqlite3';
import { openSqliteStore } from '../../../server/store';
import { LATEST_VERSION } from '../../../server/store/migrations';
import { runCli } from '../../support/cli';
import { tempDataDir } from '../../support/config';
import { postSignup } from '../../support/http';
import { startServerProcess, type ServerProcess } from '../../support/server-process';

const cli = (env: Record<string, string>, ...args: string[]) => runCli(env, args);

const FORM = 'application/x-www-form-urlencoded';
const modeOf = (file: string) => fs.statSync(file).mode & 0o777;

async function seeded(emails: string[]): Promise<string> {
  const dataDir = tempDataDir();
  const store = openSqliteStore({ dataDir });
  for (const email of emails) await store.signups.add({ email, description: '' });
  await store.close();
  return dataDir;
}

type Row = { email: string };

async function emailsIn(file: string): Promise<string[]> {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db.prepare('SELECT email FROM signups ORDER BY email').all() as Row[];
    return rows.map((row) => row.email);
  } finally {
    db.close();
  }
}

describe('waitlist backup', () => {
  it('writes one whole file that only its owner reads, in a folder it makes private', async () => {
    const dataDir = await seeded(['a@example.org', 'b@example.org']);
    const backups = path.join(tempDataDir(), 'backups');
    const file = path.join(backups, 'waitlist.db');
    const out = `Backed up 2 signup(s) (schema version ${LATEST_VERSION}) to ${file}\n`;
    expect(await cli({ DATA_DIR: dataDir }, 'backup', file)).toMatchObject({ code: 0, out });
    expect(modeOf(file)).toBe(0o600);
    expect(modeOf(backups)).toBe(0o700);
    expect(await emailsIn(file)).toEqual(['a@example.org', 'b@example.org']);
    // No -wal or -shm grew beside it when it was opened: it is whole on its own.
    expect(fs.readdirSync(backups)).toEqual(['waitlist.db']);
  });

  it('replaces an older backup of that name whole; never writes onto the database', async () => {
    const dataDir = await seeded(['a@example.org']);
    const file = path.join(tempDataDir(), 'latest.db');
    fs.writeFileSync(file, 'an older backup', { mode: 0o644 });
    expect((await cli({ DATA_DIR: dataDir }, 'backup', file)).code).toBe(0);
    expect(modeOf(file)).toBe(0o600);
    expect(await emailsIn(file)).toEqual(['a@example.org']);
    expect(fs.readdirSync(path.dirname(file))).toEqual(['latest.db']);
    const onto = await cli({ DATA_DIR: dataDir }, 'backup', path.join(dataDir, 'waitlist.db'));
    expect(onto.code).toBe(1);
    expect(onto.err).toContain('is the database itself: back up to another file');
    expect(await emailsIn(path.join(dataDir, 'waitlist.db'))).toEqual(['a@example.org']);
  });
});

describe('waitlist restore', () => {
  let site: ServerProcess | undefined;
  afterEach(async () => {
    site?.child.kill('SIGTERM');
    await site?.exited;
    site = undefined;
  });

  const signUp = async (email: string) => {
    const agent = new http.Agent();
    try {
      const body = `email=${encodeURIComponent(email)}`;
      expect(await postSignup(site!.port, body, FORM, agent)).toBe(201);
    } finally {
      agent.destroy();
    }
  };

  it('refuses while the site runs; once stopped, puts the backup back, keeps the old', async () => {
    const dataDir = tempDataDir();
    const database = path.join(dataDir, 'waitlist.db');
    const backupFile = path.join(tempDataDir(), 'backup.db');
    site = await startServerProcess({ DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
    await signUp('before@example.org');
    expect((await cli({ DATA_DIR: dataDir }, 'backup', backupFile)).code).toBe(0);
    await signUp('after@example.org');

    const refused = await cli({ DATA_DIR: dataDir }, 'restore', backupFile);
    expect(refused.code).toBe(1);
    const stopFirst = 'stop the site first (docker stop orgnote-site)';
    expect(refused.err).toBe(`waitlist: ${database} is open in another process: ${stopFirst}\n`);
    expect((await cli({ DATA_DIR: dataDir }, 'count')).out).toBe('2\n');

    site.child.kill('SIGTERM');
    await site.exited;
    site = undefined;
    const mode = modeOf(database);
    const restored = await cli({ DATA_DIR: dataDir }, 'restore', backupFile);
    const kept = `the database it replaced is kept as ${database}.before-restore`;
    const from = `from ${backupFile} to ${database}`;
    const out = `Restored 1 signup(s) (schema version ${LATEST_VERSION}) ${from}; ${kept}\n`;
    expect(restored).toEqual({ code: 0, out, err: '' });
    expect(fs.readdirSync(dataDir).sort()).toEqual(['waitlist.db', 'waitlist.db.before-restore']);
    expect(modeOf(database)).toBe(mode);
    expect(await emailsIn(database)).toEqual(['before@example.org']);
    const replaced = await emailsIn(`${database}.before-restore`);
    expect(replaced).toEqual(['after@example.org', 'before@example.org']);

    // The site runs on the restored database, and takes signups again.
    site = await startServerProcess({ DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
    await signUp('again@example.org');
    const exported = (await cli({ DATA_DIR: dataDir }, 'export')).out.split('\r\n');
    const emails = exported.slice(1, -1).map((line) => line.split(',')[0].replace(/"/g, ''));
    expect(emails).toEqual(['again@example.org', 'before@example.org']);
  });

  it('refuses a file that is not a whole waitlist database, and changes nothing', async () => {
    const dataDir = await seeded(['kept@example.org']);
    const folder = tempDataDir();
    const text = path.join(folder, 'notes.txt');
    fs.writeFileSync(text, 'not a database, but long enough for a header\n'.repeat(200));
    const other = path.join(folder, 'other.db');
    new Database(other).exec('CREATE TABLE t (x); INSERT INTO t VALUES (1);');
    const damaged = path.join(folder, 'damaged.db');
    expect((await cli({ DATA_DIR: dataDir }, 'backup', damaged)).code).toBe(0);
    const fd = fs.openSync(damaged, 'r+');
    fs.writeSync(fd, Buffer.alloc(4096, 0xa5), 0, 4096, 4096 * 2);
    fs.closeSync(fd);

    for (const [file, reason] of [
      [text, 'file is not a database'],
      [other, 'no signups table'],
      [damaged, 'integrity_check: *** in database main *** Tree'],
    ]) {
      const refused = await cli({ DATA_DIR: dataDir }, 'restore', file);
      expect(refused.code).toBe(1);
      expect(refused.err).toContain(`waitlist: ${file} is not a waitlist database (${reason}`);
      expect(refused.err).toContain('nothing was changed');
    }
    const missing = await cli({ DATA_DIR: dataDir }, 'restore', path.join(folder, 'missing.db'));
    const err = `waitlist: no backup file at ${path.join(folder, 'missing.db')}\n`;
    expect(missing).toMatchObject({ code: 1, err });
    expect(fs.readdirSync(dataDir)).toEqual(['waitlist.db']);
    expect(await emailsIn(path.join(dataDir, 'waitlist.db'))).toEqual(['kept@example.org']);
  });

  const asRoot = process.getuid?.() === 0 ? it : it.skip;

  asRoot('run as root, gives the restored database the owner of the one it replaces', async () => {
    const dataDir = await seeded(['node@example.org']);
    const database = path.join(dataDir, 'waitlist.db');
    const backupFile = path.join(tempDataDir(), 'backup.db');
    expect((await cli({ DATA_DIR: dataDir }, 'backup', backupFile)).code).toBe(0);
    // As in the image: the node user (uid 1000) owns DATA_DIR and the database.
    fs.chownSync(dataDir, 1000, 1000);
    for (const name of fs.readdirSync(dataDir)) fs.chownSync(path.join(dataDir, name), 1000, 1000);
    expect((await cli({ DATA_DIR: dataDir }, 'restore', backupFile)).code).toBe(0);
    expect(fs.statSync(database)).toMatchObject({ uid: 1000, gid: 1000 });
  });

  it('with DATABASE_URL names pg_restore, touching nothing', async () => {
    const dataDir = tempDataDir();
    const env = { DATA_DIR: dataDir, DATABASE_URL: 'postgres://site:secret@127.0.0.1:9/orgnote' };
    const refused = await cli(env, 'restore', 'backup.dump');
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('restore PostgreSQL with pg_restore (docs/operating.md)');
    expect(refused.err).not.toContain('secret');
    expect(fs.readdirSync(dataDir)).toEqual([]);
  });
});
