// The bot guard's spent tokens on both engines: a token counts its uses up to its limit, two
// store instances (replicas) share the count, concurrent uses never pass the limit, and expired
// rows are pruned.
import type { Store } from '../../../server/store/types';
import { besideStore, countRows, describeEachEngine, type StoreEngine } from '../../support/stores';

const START = Date.parse('2026-03-01T00:00:00.000Z');

function tokens(engine: StoreEngine) {
  let time: number;
  const now = () => time;
  let store: Store;

  beforeEach(async () => {
    time = START;
    store = await engine.open({ now });
  });

  it('counts a token up to its limit, on every replica', async () => {
    const other = await besideStore(store, now);
    try {
      const expires = START + 60_000;
      expect(await store.guardTokens.use('solution-a', 1, expires)).toBe(true);
      expect(await other.guardTokens.use('solution-a', 1, expires)).toBe(false);
      expect(await store.guardTokens.use('solution-b', 1, expires)).toBe(true);

      const uses = [];
      for (let i = 0; i < 5; i++) uses.push(await other.guardTokens.use('field', 3, expires));
      expect(uses).toEqual([true, true, true, false, false]);
    } finally {
      await other.close();
    }
  });

  it('never lets concurrent uses past the limit', async () => {
    const other = await besideStore(store, now);
    try {
      const attempts = Array.from(
        { length: 20 },
        (_, i) => () => (i % 2 ? other : store).guardTokens.use('busy', 5, START + 60_000),
      );
      // SQLite has one writer, and one process here: its uses take turns.
      const uses =
        store.engine === 'sqlite'
          ? await attempts.reduce<Promise<boolean[]>>(
              async (done, attempt) => [...(await done), await attempt()],
              Promise.resolve([]),
            )
          : await Promise.all(attempts.map((attempt) => attempt()));
      expect(uses.filter(Boolean)).toHaveLength(5);
    } finally {
      await other.close();
    }
  });

  it('prunes the tokens past their expiry, and only those', async () => {
    await store.guardTokens.use('old', 1, START + 1_000);
    await store.guardTokens.use('new', 1, START + 60_000);
    time = START + 30_000;
    expect(await store.guardTokens.prune(100)).toBe(1);
    expect(await countRows(store, 'guard_tokens')).toBe(1);
    expect(await store.guardTokens.use('new', 1, START + 60_000)).toBe(false);
  });
}

describeEachEngine(tokens);
