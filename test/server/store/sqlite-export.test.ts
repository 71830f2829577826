// The SQLite export reads on a connection of its own (server/store/sqlite/sql.ts): while an
// operator's export is half read, the site goes on storing signups, and the export keeps the
// snapshot it started with.
import { openSqliteStore, type SqliteStore } from '../../../server/store';
import { tempDataDir } from '../../support/config';

let store: SqliteStore;
afterEach(() => store.close());

it('keeps storing signups while an export is half read, and the export keeps its snapshot', async () => {
  store = openSqliteStore({ dataDir: tempDataDir() });
  for (let i = 0; i < 3; i++)
    await store.signups.add({ email: `early${i}@example.org`, description: '' });

  const exported: string[] = [];
  for await (const row of store.signups.stream()) {
    exported.push(row.email);
    if (exported.length === 1)
      expect(await store.signups.add({ email: 'during@example.org', description: '' })).toBe(true);
  }

  expect(exported.sort()).toEqual([
    'early0@example.org',
    'early1@example.org',
    'early2@example.org',
  ]);
  expect(await store.signups.count()).toBe(4);
});
