// A short run of `npm run load` (the long one is its own script): mixed pages and signups from
// 20 connections for 4 s; no errors, only 2xx (each signup a 201, sent once stored), memory flat.
import { runLoad, RSS_GROWTH_LIMIT } from '../../scripts/load';

describe('under load', () => {
  it('serves every request with 2xx, answers the signups 201 and keeps memory flat', async () => {
    const result = await runLoad({ seconds: 4, connections: 20 });
    expect(result.requests).toBeGreaterThan(1000);
    expect(result.errors).toBe(0);
    expect(result.non2xx).toBe(0);
    expect(Object.keys(result.statuses).sort()).toEqual(['200', '201']);
    expect(result.rssAfter - result.rssBefore).toBeLessThan(RSS_GROWTH_LIMIT);
  }, 30_000);
});
