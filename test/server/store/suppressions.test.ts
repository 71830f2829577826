// Who left is never brought back, on both engines: every erasure suppresses the address, the
// list holds a keyed hash and never the address, imports' refusals are added in batches, a person
// who signs up again themselves lifts it, and every replica hashes with the one key.
import type { Store } from '../../../server/store/types';
import {
  besideStore,
  countRows,
  describeEachEngine,
  selectRows,
  type StoreEngine,
} from '../../support/stores';

const START = Date.parse('2026-03-01T00:00:00.000Z');

/** Every value of every row of the suppression list, as text. */
const suppressionText = async (store: Store) =>
  JSON.stringify(await selectRows(store, 'SELECT * FROM suppressions'));

function suppressions(engine: StoreEngine) {
  let time: number;
  const now = () => time;
  let store: Store;

  beforeEach(async () => {
    time = START;
    store = await engine.open({ now });
  });

  it('suppresses an address when a leave or a removal erases it (the expiry: addresses.test)', async () => {
    for (const email of ['left@example.com', 'removed@example.com'])
      await store.signups.add({ email, description: '' });
    await store.erase('left@example.com', { reason: 'left' });
    await store.erase('Removed@Example.com ');

    expect(await store.suppressions.has('left@example.com')).toBe(true);
    expect(await store.suppressions.has('  REMOVED@example.COM')).toBe(true);
    expect(await store.suppressions.has('stayed@example.com')).toBe(false);
    expect(await store.suppressions.count()).toBe(2);
    // Only the hash is kept: neither form of the address is in the list.
    const kept = await suppressionText(store);
    expect(kept).not.toMatch(/left@|removed@/i);
    expect(kept).toContain('"left"');
    expect(kept).toContain('"removed"');
  });

  it('suppresses nothing when there was no one to erase', async () => {
    await store.erase('never-joined@example.com');
    expect(await store.suppressions.count()).toBe(0);
  });

  it('adds an import’s refusals once, and finds them among a batch', async () => {
    const refused = ['a@example.com', 'B@example.com', 'a@example.com'];
    expect(await store.suppressions.add(refused, 'unsubscribed')).toBe(2);
    expect(await store.suppressions.add(['b@example.com', 'c@example.com'], 'cleaned')).toBe(1);
    const batch = ['A@example.com', 'c@example.com', 'd@example.com', ' b@EXAMPLE.com'];
    expect([...(await store.suppressions.suppressedAmong(batch))].sort()).toEqual([
      'a@example.com',
      'b@example.com',
      'c@example.com',
    ]);
    expect(await store.suppressions.suppressedAmong([])).toEqual(new Set());
  });

  it('looks up a batch larger than one query takes', async () => {
    const many = Array.from({ length: 1_200 }, (_, i) => `person${i}@example.com`);
    expect(
      await store.suppressions.add(
        many.filter((_, i) => i % 3 === 0),
        'blocklisted',
      ),
    ).toBe(400);
    expect((await store.suppressions.suppressedAmong(many)).size).toBe(400);
  });

  it('lets a person who signs up again themselves back in', async () => {
    await store.signups.add({ email: 'back@example.com', description: '' });
    await store.erase('back@example.com', { reason: 'left' });
    expect(await store.suppressions.has('back@example.com')).toBe(true);

    time += 60_000;
    await store.signups.add({ email: 'Back@example.com', description: 'again' });
    expect(await store.suppressions.has('back@example.com')).toBe(false);
    expect(await store.suppressions.count()).toBe(0);
    expect(await store.suppressions.remove('back@example.com')).toBe(false);
  });

  it('hashes with one key on every replica, made once', async () => {
    const other = await besideStore(store, now);
    try {
      await Promise.all([
        store.suppressions.add(['shared@example.com'], 'left'),
        other.suppressions.has('warm-up@example.com'),
      ]);
      expect(await other.suppressions.has('shared@example.com')).toBe(true);
      expect(await countRows(store, 'store_keys')).toBe(1);
    } finally {
      await other.close();
    }
  });
}

describeEachEngine(suppressions);
