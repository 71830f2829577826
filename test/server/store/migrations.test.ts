// Schema upgrades on a file that already holds data: a database of the release before
// invitations (schema 2) opens in this one with nothing lost, and what it meant then still holds.
// Files written before the one list of versions count 3 ahead of it, and are renumbered once
// (docs/decisions/0031-one-migration-list.md).
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { LATEST_VERSION, MIGRATIONS, type Migration } from '../../../server/store/migrations';
import { openSqliteStore } from '../../../server/store';
import { APPLICATION_ID, recordVersion } from '../../../server/store/sqlite/database';
import { tempDataDir } from '../../support/config';
import { OLD_SQLITE_STEPS, sqliteAtOldVersion, sqliteHeader } from '../../support/older-schema';

const fileIn = (dataDir: string) => path.join(dataDir, 'waitlist.db');

const ADD_SIGNUP = `
INSERT INTO signups (email, email_key, created_at)
VALUES ($email, lower($email), $at)`;
const ADD_KEY = `
INSERT INTO activation_keys (key_hash, email_key, created_at)
VALUES ($hash, $emailKey, $at)`;

interface Rows {
  signups?: { email: string; at: string }[];
  keys?: { hash: string; emailKey: string; at: string }[];
}

/** DATA_DIR/waitlist.db as a release before the one list left it at user_version `old`. */
function databaseAt(dataDir: string, old: number, { signups = [], keys = [] }: Rows = {}): void {
  const db = new Database(fileIn(dataDir));
  sqliteAtOldVersion(db, old);
  for (const row of signups) db.prepare(ADD_SIGNUP).run(row);
  for (const row of keys) db.prepare(ADD_KEY).run(row);
  db.close();
}

/** Schema 2, with one signup that got a key by hand and one that did not. */
function schema2Database(dataDir: string): void {
  databaseAt(dataDir, 2, {
    signups: [
      { email: 'Keyed@example.org', at: '2026-10-01T00:00:00.000Z' },
      { email: 'waiting@example.org', at: '2026-10-02T00:00:00.000Z' },
    ],
    keys: [{ hash: '0ab1', emailKey: 'keyed@example.org', at: '2026-10-05T00:00:00.000Z' }],
  });
}

it('upgrades schema 2: a key issued by hand counts as an invitation, so invite --next does not revoke it', async () => {
  const dataDir = tempDataDir();
  schema2Database(dataDir);
  const store = openSqliteStore({ dataDir });
  try {
    expect(store.db.pragma('user_version', { simple: true })).toBe(LATEST_VERSION);
    expect((await store.signups.list()).map((r) => [r.email, r.invited_at])).toEqual([
      ['waiting@example.org', null],
      ['Keyed@example.org', '2026-10-05T00:00:00.000Z'],
    ]);
    expect(await store.signups.stats()).toEqual({
      total: 2,
      waitlisted: 1,
      invited: 1,
      activated: 0,
      unconfirmed: 0,
      undeliverable: 0,
    });
    expect(await store.signups.oldestWaiting(10)).toEqual(['waiting@example.org']);
  } finally {
    void store.close();
  }
});

it('opens a database newer than this release with a clear refusal, changing nothing', () => {
  const dataDir = tempDataDir();
  const db = new Database(fileIn(dataDir));
  recordVersion(db, LATEST_VERSION + 1);
  db.close();
  expect(() => openSqliteStore({ dataDir })).toThrow(
    `has schema version ${LATEST_VERSION + 1}, newer than this release knows (${LATEST_VERSION})`,
  );
  expect(sqliteHeader(fileIn(dataDir)).userVersion).toBe(LATEST_VERSION + 1);
});

it('upgrades schema 4: the signups it holds count as confirmed from when they joined, and stay waiting', async () => {
  const dataDir = tempDataDir();
  databaseAt(dataDir, 4, {
    signups: [{ email: 'Old@example.org', at: '2026-10-01T00:00:00.000Z' }],
  });
  const store = openSqliteStore({ dataDir });
  try {
    expect(await store.signups.list()).toMatchObject([
      { email: 'Old@example.org', confirmed_at: '2026-10-01T00:00:00.000Z', state: 'waitlisted' },
    ]);
    expect(await store.signups.oldestWaiting(10)).toEqual(['Old@example.org']);
  } finally {
    void store.close();
  }
});

describe('the one list of versions', () => {
  it('holds each file of server/store/migrations once, where its number says', async () => {
    const folder = path.resolve(__dirname, '../../../server/store/migrations');
    const files = fs.readdirSync(folder).filter((name) => /^\d{3}-[a-z-]+\.ts$/.test(name));
    const numbers = files.map((name) => Number(name.slice(0, 3)));
    expect(numbers.sort((a, b) => a - b)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    for (const name of files) {
      const { sql } = (await import(path.join(folder, name))) as { sql: Migration };
      expect(MIGRATIONS[Number(name.slice(0, 3)) - 1]).toBe(sql);
    }
  });

  it('a new file ends with the schema of a file the old numbering took to its last step', () => {
    const fresh = tempDataDir();
    openSqliteStore({ dataDir: fresh }).db.close();
    const old = tempDataDir();
    databaseAt(old, OLD_SQLITE_STEPS.length);
    expect(sqliteHeader(fileIn(fresh))).toEqual({
      userVersion: LATEST_VERSION,
      applicationId: APPLICATION_ID,
      schema: sqliteHeader(fileIn(old)).schema,
    });
  });

  it("renumbers the last release's file (user_version 15) and runs no migration", async () => {
    const dataDir = tempDataDir();
    databaseAt(dataDir, LATEST_VERSION + 3, {
      signups: [{ email: 'Kept@example.org', at: '2026-11-01T00:00:00.000Z' }],
    });
    const before = sqliteHeader(fileIn(dataDir));
    expect(before).toMatchObject({ userVersion: LATEST_VERSION + 3, applicationId: 0 });
    const store = openSqliteStore({ dataDir });
    try {
      expect(await store.schema()).toEqual({ found: LATEST_VERSION, release: LATEST_VERSION });
      expect((await store.signups.list()).map((row) => row.email)).toEqual(['Kept@example.org']);
    } finally {
      await store.close();
    }
    expect(sqliteHeader(fileIn(dataDir))).toEqual({
      userVersion: LATEST_VERSION,
      applicationId: APPLICATION_ID,
      schema: before.schema,
    });
  });

  it('reports an old file in the one list when it opens it as it is, and leaves it', async () => {
    const dataDir = tempDataDir();
    databaseAt(dataDir, LATEST_VERSION + 2);
    const store = openSqliteStore({ dataDir, migrate: false });
    try {
      expect(await store.schema()).toEqual({ found: LATEST_VERSION - 1, release: LATEST_VERSION });
      await expect(store.ping()).rejects.toThrow(
        `schema version ${LATEST_VERSION - 1}, expected ${LATEST_VERSION}`,
      );
    } finally {
      await store.close();
    }
    expect(sqliteHeader(fileIn(dataDir))).toMatchObject({
      userVersion: LATEST_VERSION + 2,
      applicationId: 0,
    });
  });

  it('refuses to read a file from before the first release as it is; migrates it', async () => {
    const dataDir = tempDataDir();
    schema2Database(dataDir);
    expect(() => openSqliteStore({ dataDir, migrate: false })).toThrow(
      `${fileIn(dataDir)} is from a build before the first release (user_version 2): ` +
        'start the site or run `waitlist migrate` to bring it up to date',
    );
    expect(sqliteHeader(fileIn(dataDir)).userVersion).toBe(2);
    const store = openSqliteStore({ dataDir });
    await store.close();
    expect(sqliteHeader(fileIn(dataDir))).toMatchObject({
      userVersion: LATEST_VERSION,
      applicationId: APPLICATION_ID,
    });
  });

  it('refuses an old-numbered file newer than this release, in the numbers of the one list', () => {
    const dataDir = tempDataDir();
    const db = new Database(fileIn(dataDir));
    db.pragma(`user_version = ${LATEST_VERSION + 4}`);
    db.close();
    expect(() => openSqliteStore({ dataDir })).toThrow(
      `has schema version ${LATEST_VERSION + 1}, newer than this release knows (${LATEST_VERSION})`,
    );
    expect(sqliteHeader(fileIn(dataDir))).toMatchObject({ userVersion: LATEST_VERSION + 4 });
  });
});
