// Only commands that write migrate. A command that reads, and backup, open the store as they find
// it: taken before an upgrade, a backup holds the schema the old release left. Run through the
// CLI's entry in this process, on a real SQLite file and a real PostgreSQL.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { query } from '../../../scripts/lib/launch/postgres';
import { LATEST_VERSION } from '../../../server/store/migrations';
import { runCli } from '../../support/cli';
import { tempDataDir } from '../../support/config';
import { postgresAtVersion, sqliteAtOldVersion, sqliteAtVersion } from '../../support/older-schema';
import { describeWithPostgres } from '../../support/postgres';
import { sharedPostgres, type SharedPostgres } from '../../support/shared-postgres';

const cli = (env: Record<string, string>, ...args: string[]) => runCli(env, args);

const EMAILS = ['early@example.org', 'second@example.org'];
const READ_ADVICE = 'Commands that only read never migrate: back up, then start the site';
const NEWER_ADVICE = 'Run the command with the release that migrated it.';

/**
 * DATA_DIR/waitlist.db as a release with only the first `version` migrations left it; `old`: a
 * release before the one list, which numbered them 3 ahead (decision 0031).
 */
function sqliteAt(version: number, { old = false } = {}): { dataDir: string; file: string } {
  const dataDir = tempDataDir();
  const file = path.join(dataDir, 'waitlist.db');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  if (old) sqliteAtOldVersion(db, version + 3);
  else sqliteAtVersion(db, version);
  const add = db.prepare('INSERT INTO signups (email, email_key, created_at) VALUES (?, ?, ?)');
  for (const email of EMAILS) add.run(email, email, '2026-11-01T10:00:00.000Z');
  db.close();
  return { dataDir, file };
}

const userVersion = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return db.pragma('user_version', { simple: true }) as number;
  } finally {
    db.close();
  }
};

const READS = ['count', 'list', 'stats', 'export', 'mail', 'outbox', 'audit', 'admin list'];
function schemaNamed(found: number, release: number): string {
  return `is at schema version ${found}; this release's is ${release}`;
}

describe('SQLite: commands that read never migrate', () => {
  const OLD = LATEST_VERSION - 1;

  it('backup copies an older schema as it is, and leaves the database at it', async () => {
    const { dataDir, file } = sqliteAt(OLD);
    const copy = path.join(tempDataDir(), 'backups', 'before-upgrade.db');
    const backup = await cli({ DATA_DIR: dataDir }, 'backup', copy);
    const out = `Backed up 2 signup(s) (schema version ${OLD}) to ${copy}\n`;
    expect(backup).toEqual({ code: 0, out, err: '' });
    expect(userVersion(copy)).toBe(OLD);
    expect(userVersion(file)).toBe(OLD);
  });

  it.each(READS)(
    '%s refuses an older schema, naming both versions; nothing changes',
    async (command) => {
      const { dataDir, file } = sqliteAt(OLD);
      const refused = await cli({ DATA_DIR: dataDir }, ...command.split(' '));
      expect(refused.code).toBe(1);
      expect(refused.out).toBe('');
      expect(refused.err).toContain(`${file} ${schemaNamed(OLD, LATEST_VERSION)}`);
      expect(refused.err).toContain(READ_ADVICE);
      expect(userVersion(file)).toBe(OLD);
    },
  );

  it('a command that writes migrates first, as the site does', async () => {
    const { dataDir, file } = sqliteAt(OLD);
    const migrated = await cli({ DATA_DIR: dataDir }, 'migrate');
    expect(migrated).toMatchObject({ code: 0, out: 'Schema up to date (SQLite in DATA_DIR)\n' });
    expect(userVersion(file)).toBe(LATEST_VERSION);
    expect(await cli({ DATA_DIR: dataDir }, 'count')).toEqual({ code: 0, out: '2\n', err: '' });
    expect((await cli({ DATA_DIR: dataDir }, 'remove', EMAILS[0])).code).toBe(0);
    expect((await cli({ DATA_DIR: dataDir }, 'count')).out).toBe('1\n');
  });

  it('a file of a release before the one list is read as it is, in the numbers of the list', async () => {
    const { dataDir, file } = sqliteAt(LATEST_VERSION, { old: true });
    expect(await cli({ DATA_DIR: dataDir }, 'count')).toEqual({ code: 0, out: '2\n', err: '' });
    const copy = path.join(dataDir, 'copy.db');
    const out = `Backed up 2 signup(s) (schema version ${LATEST_VERSION}) to ${copy}\n`;
    expect(await cli({ DATA_DIR: dataDir }, 'backup', copy)).toEqual({ code: 0, out, err: '' });
    expect(userVersion(file)).toBe(LATEST_VERSION + 3);

    const older = sqliteAt(OLD, { old: true });
    const refused = await cli({ DATA_DIR: older.dataDir }, 'count');
    expect(refused.err).toContain(`${older.file} ${schemaNamed(OLD, LATEST_VERSION)}`);
    expect(userVersion(older.file)).toBe(OLD + 3);
  });

  it('every command refuses a schema newer than this release knows', async () => {
    const { dataDir, file } = sqliteAt(LATEST_VERSION);
    const db = new Database(file);
    db.pragma('user_version = 99');
    db.close();
    const copy = path.join(dataDir, 'copy.db');
    for (const command of [['count'], ['backup', copy]]) {
      const refused = await cli({ DATA_DIR: dataDir }, ...command);
      expect(refused.code).toBe(1);
      expect(refused.err).toContain(`${file} ${schemaNamed(99, LATEST_VERSION)}`);
      expect(refused.err).toContain(NEWER_ADVICE);
    }
    expect(fs.existsSync(copy)).toBe(false);
    const write = await cli({ DATA_DIR: dataDir }, 'remove', EMAILS[0]);
    expect(write.code).toBe(1);
    expect(write.err).toContain('schema version 99, newer than this release knows');
  });

  it('a command that reads creates no database where there is none (a mistyped DATA_DIR)', async () => {
    const dataDir = path.join(tempDataDir(), 'typo');
    const refused = await cli({ DATA_DIR: dataDir }, 'count');
    expect(refused.code).toBe(1);
    const file = path.join(dataDir, 'waitlist.db');
    expect(refused.err).toContain(`${file} holds no waitlist yet: schema version 0`);
    expect(refused.err).toContain('Check DATA_DIR (or DATABASE_URL)');
    expect(fs.existsSync(dataDir)).toBe(false);
  });

  it('dns opens no store at all', async () => {
    const dataDir = path.join(tempDataDir(), 'none');
    expect((await cli({ DATA_DIR: dataDir }, 'dns')).err).toContain(
      'dns needs DKIM_PRIVATE_KEY_FILE',
    );
    expect(fs.existsSync(dataDir)).toBe(false);
  });
});

describeWithPostgres('PostgreSQL: commands that read never migrate', () => {
  let server: SharedPostgres;
  beforeAll(async () => {
    server = await sharedPostgres();
  });
  afterAll(() => server?.dropDatabases());

  const ADD_SIGNUP = `INSERT INTO signups (email, email_key, created_at, confirmed_at)
    VALUES ($1, $1, '2026-11-01T10:00:00Z', '2026-11-01T10:00:00Z')`;

  /** A database as the release before the console (schema version 2) left it, with two signups. */
  async function postgresAtVersion2(): Promise<string> {
    const url = await server.createDatabase();
    await query(url, postgresAtVersion(2).join(';\n'));
    for (const email of EMAILS) await query(url, ADD_SIGNUP, [email]);
    return url;
  }

  const LATEST_APPLIED = 'SELECT max(version) AS version FROM schema_migrations';
  const versionOf = async (url: string) => {
    const [{ version }] = await query<{ version: number }>(url, LATEST_APPLIED);
    return version;
  };

  it('commands that read refuse an older schema, and leave it as it is', async () => {
    const url = await postgresAtVersion2();
    for (const command of [['count'], ['export'], ['stats'], ['admin', 'list']]) {
      const refused = await cli({ DATABASE_URL: url }, ...command);
      expect(refused.code).toBe(1);
      expect(refused.err).toContain(`(DATABASE_URL) ${schemaNamed(2, LATEST_VERSION)}`);
      expect(refused.err).toContain(READ_ADVICE);
    }
    // backup names pg_dump, and does not migrate on the way.
    const backup = await cli({ DATABASE_URL: url }, 'backup', path.join(tempDataDir(), 'copy.db'));
    expect(backup.code).toBe(1);
    expect(backup.err).toContain('back up PostgreSQL with pg_dump -Fc (docs/operating.md)');
    expect(await versionOf(url)).toBe(2);
    expect(await query(url, "SELECT 1 FROM pg_tables WHERE tablename = 'admins'")).toEqual([]);
  });

  it('a command that writes migrates first; a newer schema is refused by all', async () => {
    const url = await postgresAtVersion2();
    const migrated = await cli({ DATABASE_URL: url }, 'migrate');
    const out = 'Schema up to date (PostgreSQL at DATABASE_URL)\n';
    expect(migrated).toMatchObject({ code: 0, out });
    expect(await versionOf(url)).toBe(LATEST_VERSION);
    expect(await cli({ DATABASE_URL: url }, 'count')).toEqual({ code: 0, out: '2\n', err: '' });
    await query(url, 'INSERT INTO schema_migrations (version) VALUES (99)');
    const read = await cli({ DATABASE_URL: url }, 'count');
    expect(read.code).toBe(1);
    expect(read.err).toContain(schemaNamed(99, LATEST_VERSION));
    expect(read.err).toContain(NEWER_ADVICE);
    const write = await cli({ DATABASE_URL: url }, 'remove', EMAILS[0]);
    expect(write.code).toBe(1);
    expect(write.err).toContain(`schema version 99 is newer than this release (${LATEST_VERSION})`);
  });
});
