// The audit log's hash chain, on both engines: appends verify, an entry changed or deleted by hand
// (as whoever holds the database could) is named by `waitlist audit --verify`, which exits 1;
// concurrent appends from two store instances still make one chain; an erasure and the clearing
// of client addresses after 90 days leave it whole; and an action repeated in a window is
// recorded once.
import path from 'node:path';
import type { PostgresStore } from '../../../server/store/postgres';
import type { SqliteStore } from '../../../server/store/sqlite';
import type { Store } from '../../../server/store/types';
import { runCli } from '../../support/cli';
import { tempDataDir } from '../../support/config';
import { besideStore, describeEachEngine, type StoreEngine } from '../../support/stores';

const START = Date.parse('2026-04-01T08:00:00.000Z');
const DAY = 24 * 60 * 60_000;

/** `waitlist audit --verify` on the store's database, as an operator runs it. */
function verifyWithCli(store: Store) {
  const env: Record<string, string> =
    store.engine === 'sqlite'
      ? { DATA_DIR: path.dirname((store as SqliteStore).db.name) }
      : {
          DATA_DIR: tempDataDir(),
          DATABASE_URL: (
            (store as PostgresStore).pool.options as {
              connectionString: string;
            }
          ).connectionString,
        };
  return runCli(env, ['audit', '--verify']);
}

/** A statement run on the database directly, past the store, as an attacker with a shell would. */
async function byHand(store: Store, statement: string): Promise<void> {
  if (store.engine === 'sqlite') (store as SqliteStore).db.exec(statement);
  else await (store as PostgresStore).pool.query(statement);
}

function contract(engine: StoreEngine) {
  let time: number;
  let store: Store;
  beforeEach(async () => {
    time = START;
    store = await engine.open({ now: () => time });
  });

  /**
   * A second instance on the store's database, as another replica. SQLite's is the same instance:
   * its writers are other processes, and a second instance in this process would block the thread
   * on BEGIN IMMEDIATE while the first awaits inside its transaction.
   */
  const anotherInstance = async () =>
    store.engine === 'postgres' ? besideStore(store, () => time) : store;

  /** `count` entries a minute apart, oldest first. */
  async function appendEntries(count: number) {
    for (let i = 0; i < count; i++) {
      time += 60_000;
      await store.audit.record({
        account: 'ops@example.org',
        action: `invite ${i}`,
        addresses: i,
        client: '203.0.113.9',
      });
    }
    return (await store.audit.list({ limit: count })).reverse();
  }

  it('verifies a chain of appends, and the CLI says how many entries it checked', async () => {
    await appendEntries(5);
    expect(await store.audit.verify()).toEqual({ kind: 'intact', verified: 5, unchained: 0 });
    const run = await verifyWithCli(store);
    expect(run).toMatchObject({ code: 0, err: '' });
    expect(run.out).toBe('5 entry(ies) verified: the chain is whole.\n');
  });

  it('names the entry whose action was changed by hand, and exits 1', async () => {
    const entries = await appendEntries(5);
    const changed = entries[2];
    await byHand(store, `UPDATE audit_log SET action = 'logout' WHERE id = '${changed.id}'`);
    expect(await store.audit.verify()).toEqual({
      kind: 'broken',
      verified: 2,
      unchained: 0,
      entry: { id: changed.id, at: changed.at },
      reason: 'changed',
    });
    const run = await verifyWithCli(store);
    expect(run.code).toBe(1);
    expect(run.out).toBe(
      `The chain breaks at entry ${changed.id} of ${changed.at}: it is not what was recorded ` +
        '(changed by hand).\n2 entry(ies) before it verified.\n',
    );
  });

  it('names the entry after one deleted from the middle', async () => {
    const entries = await appendEntries(5);
    await byHand(store, `DELETE FROM audit_log WHERE id = '${entries[1].id}'`);
    const run = await verifyWithCli(store);
    expect(run.code).toBe(1);
    expect(run.out).toContain(
      `The chain breaks at entry ${entries[2].id} of ${entries[2].at}: the entry before it is ` +
        'not the one it followed',
    );
    expect(run.out).toContain('\n1 entry(ies) before it verified.\n');
  });

  it('makes one chain of concurrent appends from two store instances on one database', async () => {
    const replica = await anotherInstance();
    try {
      await Promise.all(
        Array.from({ length: 24 }, (_, i) =>
          (i % 2 ? replica : store).audit.record({
            account: `ops${i % 2}@example.org`,
            action: `retry mail ${i}`,
            addresses: 1,
          }),
        ),
      );
    } finally {
      if (replica !== store) await replica.close();
    }
    expect(await store.audit.verify()).toEqual({ kind: 'intact', verified: 24, unchained: 0 });
    expect((await verifyWithCli(store)).code).toBe(0);
  });

  it('stays whole through an erasure and the clearing of client addresses after 90 days', async () => {
    await store.signups.add({ email: 'leaving@example.org', description: '' });
    await appendEntries(3);
    await store.erase('leaving@example.org');
    await store.audit.record({ account: 'ops@example.org', action: 'remove', addresses: 1 });
    time += 91 * DAY;
    await store.audit.record({ account: 'cli', action: 'admin add a@example.org', addresses: 0 });
    const entries = await store.audit.list({ limit: 10 });
    expect(entries.map((e) => e.client)).toEqual([null, null, null, null, null]);
    expect(await store.audit.verify()).toEqual({ kind: 'intact', verified: 5, unchained: 0 });
  });

  it('counts entries from before the chain began apart, and verifies the chain after them', async () => {
    await byHand(
      store,
      `INSERT INTO audit_log (id, at, account, action, addresses)
       VALUES ('old-entry', '2026-03-01T00:00:00.000Z', 'ops@example.org', 'login', 0)`,
    );
    await appendEntries(2);
    expect(await store.audit.verify()).toEqual({ kind: 'intact', verified: 2, unchained: 1 });
    expect((await verifyWithCli(store)).out).toBe(
      '2 entry(ies) verified: the chain is whole.\n' +
        '1 entry(ies) from before the chain began are not covered.\n',
    );
  });

  it('records an action once per window, even from two store instances at once', async () => {
    const replica = await anotherInstance();
    const entry = { account: 'ops@example.org', action: 'login throttled', addresses: 0 };
    const since = new Date(START).toISOString();
    try {
      const recorded = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 ? replica : store).audit.recordOnce(entry, since),
        ),
      );
      expect(recorded.filter(Boolean)).toHaveLength(1);
    } finally {
      if (replica !== store) await replica.close();
    }
    time += 15 * 60_000;
    expect(await store.audit.recordOnce(entry, new Date(time).toISOString())).toBe(true);
    expect((await store.audit.list({ limit: 10 })).map((e) => e.action)).toEqual([
      'login throttled',
      'login throttled',
    ]);
    expect((await store.audit.verify()).kind).toBe('intact');
  });
}

describeEachEngine(contract);
