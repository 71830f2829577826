// The SQLite store's files are its user's alone, whatever the umask: the database holds activation
// keys not yet sent. Under the usual umask 022 a new DATA_DIR is 0700, the database and its -wal
// and -shm are 0600, and so is a backup.
import fs from 'node:fs';
import path from 'node:path';
import { ensureWritableDataDir } from '../../../server/data-dir';
import { openSqliteStore } from '../../../server/store';
import { tempDataDir } from '../../support/config';

const modeOf = (file: string) => (fs.statSync(file).mode & 0o777).toString(8);

let umask: number;
beforeEach(() => (umask = process.umask(0o022)));
afterEach(() => process.umask(umask));

it('creates the data folder 0700, the database and its -wal and -shm 0600', async () => {
  const dataDir = path.join(tempDataDir(), 'new', 'data');
  const store = openSqliteStore({ dataDir });
  try {
    await store.signups.add({ email: 'zoe@example.org', description: '' });
    const database = path.join(dataDir, 'waitlist.db');
    const modes = Object.fromEntries(
      [dataDir, database, `${database}-wal`, `${database}-shm`].map((file) => [
        path.basename(file),
        modeOf(file),
      ]),
    );
    expect(modes).toEqual({
      data: '700',
      'waitlist.db': '600',
      'waitlist.db-wal': '600',
      'waitlist.db-shm': '600',
    });
  } finally {
    await store.close();
  }
});

it('writes a backup 0600', async () => {
  const dataDir = tempDataDir();
  const store = openSqliteStore({ dataDir });
  try {
    const backup = path.join(dataDir, 'backups', 'waitlist.db');
    await store.backup!(backup);
    expect(modeOf(backup)).toBe('600');
  } finally {
    await store.close();
  }
});

it('keeps a database that exists as it is', async () => {
  const dataDir = tempDataDir();
  await openSqliteStore({ dataDir }).close();
  const database = path.join(dataDir, 'waitlist.db');
  fs.chmodSync(database, 0o640);
  const store = openSqliteStore({ dataDir });
  try {
    expect(await store.signups.list()).toEqual([]);
    expect(modeOf(database)).toBe('640');
  } finally {
    await store.close();
  }
});

it('creates a missing DATA_DIR 0700 at start-up', () => {
  const dataDir = path.join(tempDataDir(), 'started');
  ensureWritableDataDir(dataDir);
  expect(modeOf(dataDir)).toBe('700');
});
