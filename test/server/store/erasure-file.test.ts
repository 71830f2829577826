// Erasure is complete on disk: once a person leaves, their address is in no byte of the SQLite
// file, of its WAL, or of a backup taken afterwards (secure_delete zeroes the rows, a checkpoint
// empties the WAL). A backup taken before still holds it: that is what the grep proves it can
// find, and what /privacy tells people about (BACKUP_RETENTION_DAYS). Importing the same list
// afterwards leaves the person out (suppressed) and writes no trace of them either.
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { openSqliteStore, type SqliteStore } from '../../../server/store';
import { exportSignups } from '../../../server/waitlist/listing';
import { importList } from '../../../server/waitlist/import';
import { databaseFile } from '../../../server/store/sqlite/database';
import { tempDataDir } from '../../support/config';
import { addInvited } from '../../support/stores';

const GONE = 'Erased.Person@forget.example';
const STAYS = 'stays@keep.example';

/** Whether the file holds the address, as typed or normalised; a missing file holds nothing. */
function holds(file: string, email: string): boolean {
  if (!fs.existsSync(file)) return false;
  const bytes = fs.readFileSync(file);
  return [email, email.toLowerCase()].some((form) => bytes.includes(Buffer.from(form, 'utf8')));
}

describe('erasure on disk (SQLite)', () => {
  let dataDir: string;
  let store: SqliteStore;

  beforeEach(async () => {
    dataDir = tempDataDir();
    store = openSqliteStore({ dataDir });
    // What a person leaves behind in most tables: a signup whose description repeats the
    // address, an invitation (its mail and key), webhook events holding the address.
    await store.webhooks.add({
      url: 'https://crm.example/hooks',
      events: ['signup.created', 'invitation.sent'],
      withAddress: true,
    });
    for (const email of [GONE, STAYS]) {
      await store.signups.add({ email, description: `reach me at ${email}` });
      await addInvited(store, email);
    }
    await store.signupEvents.writeDueCreations(10);
  });

  afterEach(async () => {
    await store.close();
  });

  it('leaves the address in no byte of the file, its WAL or a later backup', async () => {
    const file = databaseFile(dataDir);
    const before = path.join(dataDir, 'before.db');
    await store.backup!(before);
    expect(holds(before, GONE)).toBe(true);

    expect((await store.erase(GONE, { reason: 'left' })).signup).toBe(true);
    const after = path.join(dataDir, 'after.db');
    await store.backup!(after);

    for (const copy of [file, `${file}-wal`, after]) expect(holds(copy, GONE)).toBe(false);
    // The one who stayed is still there, so the files were read, not emptied.
    expect(holds(file, STAYS) || holds(`${file}-wal`, STAYS)).toBe(true);
    expect(holds(after, STAYS)).toBe(true);
    // What is left of the person is their keyed hash, which an import checks against.
    expect(await store.suppressions.has(GONE)).toBe(true);
    expect(holds(before, GONE)).toBe(true);
  });

  it('keeps who left out when the same list is imported again, and still holds no trace', async () => {
    let list = '';
    for await (const chunk of exportSignups({ store })) list += chunk;
    expect(list).toContain(GONE);
    await store.erase(GONE, { reason: 'left' });

    const imported = await importList(
      { store, config: { backendUrl: undefined } },
      { source: Readable.from([list]), fileName: 'old-list.csv', actor: { account: 'cli' } },
    );
    expect(imported).toMatchObject({
      kind: 'done',
      report: { added: { count: 0 }, alreadyThere: { count: 1 }, suppressed: { count: 1 } },
    });
    expect((await store.signups.list()).map((row) => row.email)).toEqual([STAYS]);
    const file = databaseFile(dataDir);
    const backup = path.join(dataDir, 'after-import.db');
    await store.backup!(backup);
    for (const copy of [file, `${file}-wal`, backup]) expect(holds(copy, GONE)).toBe(false);
  });
});
