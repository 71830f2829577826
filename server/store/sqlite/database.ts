// The site's own SQLite file (DATA_DIR/waitlist.db): opened, and brought along the one list of
// schema versions (../migrations). WAL + synchronous=FULL: once a statement has returned, the row
// survives a crash or kill -9 (the 2xx is only sent after that).
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { LATEST_VERSION, migrationSql } from '../migrations';
import { sqliteSteps } from '../migrations/001-initial';

export type Db = Database.Database;

const DB_FILE_NAME = 'waitlist.db';

/**
 * PRAGMA application_id of a file whose user_version counts in the one list of versions
 * (migrations/index.ts): 'ORGN'. A file written before that list has 0 there, and a user_version
 * 3 ahead of the list's: SQLite took four steps to reach what version 1 holds
 * (docs/decisions/0031-one-migration-list.md).
 */
export const APPLICATION_ID = 0x4f52474e;
const OLD_OFFSET = 3;

/** A file's version in the one list, or its user_version when it was written before that list. */
type Found = { version: number } | { old: number };

function found(db: Db): Found {
  const version = db.pragma('user_version', { simple: true }) as number;
  const inList = version === 0 || db.pragma('application_id', { simple: true }) === APPLICATION_ID;
  return inList ? { version } : { old: version };
}

/** Records, inside the step's transaction, that the file is at `version` of the one list. */
export function recordVersion(db: Db, version: number): void {
  db.pragma(`user_version = ${version}`);
  db.pragma(`application_id = ${APPLICATION_ID}`);
}

/**
 * How far a file's schema has come in the one list (0: an empty file). A file that a build from
 * before the first release left short of version 1 has no place in it until it is migrated.
 */
export function schemaVersionOf(db: Db): number {
  const at = found(db);
  if ('version' in at) return at.version;
  if (at.old > OLD_OFFSET) return at.old - OLD_OFFSET;
  throw new Error(
    `${db.name} is from a build before the first release (user_version ${at.old}): ` +
      'start the site or run `waitlist migrate` to bring it up to date',
  );
}

export const databaseFile = (dataDir: string) => path.join(dataDir, DB_FILE_NAME);

/**
 * Each step in an IMMEDIATE transaction that reads the version again inside it: the site and a CLI
 * opening an old file at the same moment then take turns, and the second finds nothing left to do.
 * A file from before the one list is renumbered in a step of its own, which first takes whichever
 * of SQLite's first four steps the file lacks.
 */
function migrate(db: Db): void {
  const at = found(db);
  const current = 'version' in at ? at.version : at.old - OLD_OFFSET;
  if (current > LATEST_VERSION) {
    const release = `newer than this release knows (${LATEST_VERSION})`;
    throw new Error(`${db.name} has schema version ${current}, ${release}.`);
  }
  const step = db.transaction((): boolean => {
    const now = found(db);
    if ('old' in now) {
      for (const sql of sqliteSteps.slice(now.old)) db.exec(sql);
      recordVersion(db, Math.max(now.old - OLD_OFFSET, 1));
      return true;
    }
    if (now.version >= LATEST_VERSION) return false;
    db.exec(migrationSql(now.version + 1, 'sqlite'));
    recordVersion(db, now.version + 1);
    return true;
  });
  let more = true;
  while (more) more = step.immediate();
}

/**
 * `migrate: false` opens the file as it is, for commands that only read or copy it: they never
 * change its schema, and never create a file that is not there.
 */
export function openDatabase(dataDir: string, { migrate: migrating = true } = {}): Db {
  if (migrating) createPrivately(dataDir);
  const db = new Database(databaseFile(dataDir), { fileMustExist: !migrating });
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  // An erased address is overwritten with zeros in the file, not left in a free slot of a page
  // (the erasure then checkpoints the WAL: sqlite/index.ts).
  db.pragma('secure_delete = ON');
  // Concurrent CLI commands wait for the server's write instead of failing at once.
  db.pragma('busy_timeout = 5000');
  try {
    if (migrating) migrate(db);
    // A file it cannot read is refused now, before a command reads it.
    else schemaVersionOf(db);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

/**
 * The folder (0700) and an empty file (0600) for SQLite to fill, whatever the umask: the file holds
 * keys not yet sent, and SQLite gives its -wal and -shm the file's own mode. What exists is kept.
 */
function createPrivately(dataDir: string): void {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  try {
    fs.closeSync(fs.openSync(databaseFile(dataDir), 'wx', 0o600));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}
