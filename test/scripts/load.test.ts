// A short run of `npm run load` (the long one is its own script): mixed pages and signups from
// 20 connections for 4 s; no errors, only 2xx, every signup answered 201 is in the database, and
// memory stays flat. How fast it goes is npm run bench's business, not this test's.
import { runLoad, RSS_GROWTH_LIMIT } from '../../scripts/load';

describe('under load', () => {
  it('serves every request with 2xx, stores every signup it answers 201 and keeps memory flat', async () => {
    const result = await runLoad({ seconds: 4, connections: 20 });
    expect(result.errors).toBe(0);
    expect(result.non2xx).toBe(0);
    expect(Object.keys(result.statuses).sort()).toEqual(['200', '201']);
    const { sent, created, stored } = result.signups;
    expect(created).toBeGreaterThan(0);
    // Every 201 is a row; a request still in flight at the stop may be a row without a counted 201.
    expect(stored).toBeGreaterThanOrEqual(created);
    expect(stored).toBeLessThanOrEqual(sent);
    expect(result.after.heapUsed - result.before.heapUsed).toBeLessThan(RSS_GROWTH_LIMIT);
    expect(result.after.rss - result.before.rss).toBeLessThan(RSS_GROWTH_LIMIT);
  });
});
