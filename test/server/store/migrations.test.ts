// Schema upgrades on a file that already holds data: a database of the release before
// invitations (schema 2) opens in this one with nothing lost, and what it meant then still holds.
import path from 'node:path';
import Database from 'better-sqlite3';
import { MIGRATIONS } from '../../../server/store/sqlite/database';
import { openSqliteStore } from '../../../server/store';
import { tempDataDir } from '../../support/config';

/** DATA_DIR/waitlist.db as the release with the first `version` migrations left it, with `rows`. */
function databaseAt(dataDir: string, version: number, ...rows: string[]): void {
  const db = new Database(path.join(dataDir, 'waitlist.db'));
  for (const [index, sql] of MIGRATIONS.slice(0, version).entries()) {
    db.exec(sql);
    db.pragma(`user_version = ${index + 1}`);
  }
  for (const row of rows) db.prepare(row).run();
  db.close();
}

/** Schema 2, with one signup that got a key by hand and one that did not. */
function schema2Database(dataDir: string): void {
  databaseAt(
    dataDir,
    2,
    "INSERT INTO signups (email, email_key, created_at) VALUES ('Keyed@example.org', 'keyed@example.org', '2026-10-01T00:00:00.000Z')",
    "INSERT INTO signups (email, email_key, created_at) VALUES ('waiting@example.org', 'waiting@example.org', '2026-10-02T00:00:00.000Z')",
    "INSERT INTO activation_keys (key_hash, email_key, created_at) VALUES ('0ab1', 'keyed@example.org', '2026-10-05T00:00:00.000Z')",
  );
}

it('upgrades schema 2: a key issued by hand counts as an invitation, so invite --next does not revoke it', async () => {
  const dataDir = tempDataDir();
  schema2Database(dataDir);
  const store = openSqliteStore({ dataDir });
  try {
    expect(store.db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
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
  const db = new Database(path.join(dataDir, 'waitlist.db'));
  db.pragma(`user_version = ${MIGRATIONS.length + 1}`);
  db.close();
  expect(() => openSqliteStore({ dataDir })).toThrow(
    `has schema version ${MIGRATIONS.length + 1}, newer than this release knows (${MIGRATIONS.length})`,
  );
});

it('upgrades schema 4: the signups it holds count as confirmed from when they joined, and stay waiting', async () => {
  const dataDir = tempDataDir();
  databaseAt(
    dataDir,
    4,
    "INSERT INTO signups (email, email_key, created_at) VALUES ('Old@example.org', 'old@example.org', '2026-10-01T00:00:00.000Z')",
  );
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
