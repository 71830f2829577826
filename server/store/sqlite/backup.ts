// Backups of the SQLite file and their restore. A backup is one self-contained file, readable
// only by its owner, written beside its destination and renamed into place: an interrupted backup
// never leaves a half-written file under the name of a good one. A restore replaces
// DATA_DIR/waitlist.db only while no process has it open, since a running site would go on
// writing into the file it replaced.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { databaseFile, schemaVersionOf, type Db } from './database';

/** The files SQLite keeps beside a database: a stale one would be applied to its replacement. */
const SIDE_FILES = ['-wal', '-shm', '-journal'];

const removeWithSideFiles = (file: string) => {
  for (const suffix of ['', ...SIDE_FILES]) fs.rmSync(`${file}${suffix}`, { force: true });
};

/** Writes a file's data and its directory entry to disk before the caller goes on. */
function sync(file: string): void {
  const fd = fs.openSync(file, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** A copy only its owner can read from the first byte (copyFile would take the source's mode). */
function copyPrivately(from: string, to: string): void {
  const source = fs.openSync(from, 'r');
  try {
    const target = fs.openSync(to, 'wx', 0o600);
    try {
      const chunk = Buffer.alloc(1 << 20);
      let length: number;
      while ((length = fs.readSync(source, chunk)) > 0) fs.writeSync(target, chunk, 0, length);
    } finally {
      fs.closeSync(target);
    }
  } finally {
    fs.closeSync(source);
  }
}

/**
 * In rollback-journal mode: a copy left in WAL mode grows -wal and -shm files beside it whenever
 * it is opened, even to be checked. Also rejects a file that is not an SQLite database.
 */
function asOneFile(file: string): void {
  const db = new Database(file, { fileMustExist: true });
  try {
    db.pragma('journal_mode = DELETE');
  } finally {
    db.close();
  }
}

/** SQLite's online backup: consistent while the site writes. Mode 0600, its folder 0700 if new. */
export async function backupDatabase(db: Db, file: string): Promise<void> {
  const destination = path.resolve(file);
  const dir = path.dirname(destination);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const partial = path.join(dir, `.${path.basename(destination)}.partial`);
  removeWithSideFiles(partial);
  // Created before SQLite opens it, so the data is never readable by others, even for a moment.
  fs.closeSync(fs.openSync(partial, 'wx', 0o600));
  try {
    await db.backup(partial);
    asOneFile(partial);
    sync(partial);
    fs.renameSync(partial, destination);
    sync(dir);
  } catch (err) {
    removeWithSideFiles(partial);
    throw err;
  }
}

export type RestoreResult =
  | { kind: 'no-backup'; file: string }
  | { kind: 'not-a-database'; file: string; reason: string }
  | { kind: 'in-use'; database: string }
  | {
      kind: 'restored';
      file: string;
      database: string;
      /** Where the database it replaced was kept, if there was one. */
      replaced?: string;
      schemaVersion: number;
      signups: number;
    };

const SIGNUPS_TABLE = `SELECT 1
  FROM sqlite_master
  WHERE type = 'table' AND name = 'signups'`;
const SIGNUPS_COUNT = `SELECT COUNT(*) AS n
  FROM signups`;
const oneLine = (text: string) => text.replace(/\s*\n\s*/g, ' ');

/** What an SQLite file holds, or why it is not a waitlist database. */
function inspect(file: string): { schemaVersion: number; signups: number } | { reason: string } {
  try {
    asOneFile(file);
    const db = new Database(file, { fileMustExist: true, readonly: true });
    try {
      const integrity = db.pragma('integrity_check', { simple: true }) as string;
      if (integrity !== 'ok') return { reason: `integrity_check: ${oneLine(integrity)}` };
      const schemaVersion = schemaVersionOf(db);
      const hasSignups = db.prepare(SIGNUPS_TABLE).get();
      if (schemaVersion < 1 || !hasSignups) return { reason: 'no signups table' };
      const { n } = db.prepare(SIGNUPS_COUNT).get() as { n: number };
      return { schemaVersion, signups: n };
    } finally {
      db.close();
    }
  } catch (err) {
    return { reason: (err as Error).message };
  }
}

/**
 * Is another process using the database? Leaving WAL mode needs the only connection to the file,
 * so SQLite refuses it (SQLITE_BUSY) while the site has it open. Leaving it also checkpoints the
 * WAL into the file, so the database kept aside is whole on its own.
 */
function inUse(database: string): boolean {
  let db: Db | undefined;
  try {
    db = new Database(database, { fileMustExist: true });
    db.pragma('busy_timeout = 0');
    db.pragma('journal_mode = DELETE');
    return false;
  } catch (err) {
    const code = (err as { code?: string }).code;
    // A damaged file, the likely reason for a restore, is replaced all the same.
    return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
  } finally {
    db?.close();
  }
}

/**
 * Replaces DATA_DIR/waitlist.db with a copy of `file`, after checking that it is a whole waitlist
 * database. The database it replaces is kept as waitlist.db.before-restore; the new one takes its
 * owner and mode (or DATA_DIR's owner and 0600).
 */
export function restoreDatabase(dataDir: string, file: string): RestoreResult {
  if (!fs.statSync(file, { throwIfNoEntry: false })?.isFile()) return { kind: 'no-backup', file };
  const database = databaseFile(dataDir);
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  // Checked as a copy in DATA_DIR: the backup itself may sit on a read-only mount, and the copy
  // is then renamed into place in one step.
  const incoming = path.join(dataDir, '.waitlist.db.restoring');
  removeWithSideFiles(incoming);
  copyPrivately(file, incoming);
  let kept = false;
  try {
    const found = inspect(incoming);
    if ('reason' in found) return { kind: 'not-a-database', file, reason: found.reason };
    const current = fs.statSync(database, { throwIfNoEntry: false });
    if (current && inUse(database)) return { kind: 'in-use', database };
    const owner = current ?? fs.statSync(dataDir);
    fs.chmodSync(incoming, current ? current.mode & 0o777 : 0o600);
    // Only root can give a file away (`docker exec -u root`, or the host); others own it already.
    if (process.getuid?.() === 0) fs.chownSync(incoming, owner.uid, owner.gid);
    sync(incoming);
    const replaced = current ? `${database}.before-restore` : undefined;
    if (replaced) fs.renameSync(database, replaced);
    for (const suffix of SIDE_FILES) fs.rmSync(`${database}${suffix}`, { force: true });
    fs.renameSync(incoming, database);
    kept = true;
    sync(dataDir);
    return { kind: 'restored', file, database, replaced, ...found };
  } finally {
    if (!kept) removeWithSideFiles(incoming);
  }
}
