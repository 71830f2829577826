// npm run load: 50 connections for 30 s (LOAD_SECONDS) against / and /activate, mixed with
// waitlist signups and a personal (?email=) page, on the production server with its embedded
// store. Passes with zero errors, zero non-2xx answers, every signup answered 201 found in the
// database afterwards, and memory growth under 50 MB, both of the heap and of RSS, each measured
// after a full collection (scripts/inspector.ts): on Node 24 RSS without one measures how lazily V8
// collects, not what the server keeps.
import autocannon from 'autocannon';
import { openSqliteStore } from '../server/store';
import { liveMemory, type LiveMemory } from './inspector';
import { startBuiltServer } from './lib/launch/server';

export const RSS_GROWTH_LIMIT = 50 * 1024 * 1024;

export interface LoadResult {
  requests: number;
  errors: number;
  non2xx: number;
  statuses: Record<string, number>;
  /** After a full collection, at the end of the warm-up and at the end of the run. */
  before: LiveMemory;
  after: LiveMemory;
  /**
   * Signups sent, answered 201 and found in the database afterwards; warm-up included in all three.
   */
  signups: { sent: number; created: number; stored: number };
}

export async function runLoad({
  seconds,
  connections,
}: {
  seconds: number;
  connections: number;
}): Promise<LoadResult> {
  // No submission limit: one load generator stands in for thousands of visitors.
  const site = await startBuiltServer({
    env: { SIGNUP_RATE_LIMIT: '0', LOG_LEVEL: 'warn' },
    logFile: 'site.log',
    inspect: true,
  });
  const memory = () => liveMemory(site.inspectPort!, site.child.pid!);
  try {
    let counter = 0;
    const signup = {
      method: 'POST' as const,
      path: '/api/subscriptions',
      headers: { 'content-type': 'application/json' },
      setupRequest: (request: autocannon.Request) => ({
        ...request,
        body: JSON.stringify({
          email: `load${process.pid}-${counter++}@example.org`,
          description: 'load test',
        }),
      }),
    };
    const requests = [
      { method: 'GET' as const, path: '/' },
      { method: 'GET' as const, path: '/activate' },
      signup,
      { method: 'GET' as const, path: '/?email=visitor%40example.org' },
      { method: 'GET' as const, path: '/activate' },
    ];
    let created = 0;
    /** Runs the mix; only 201 answers are signups, so they are counted in every run. */
    const run = (duration: number, onStatus: (status: number) => void = () => {}) => {
      // Without a callback autocannon returns an instance that is both an emitter and a promise.
      const instance = autocannon({
        url: site.url,
        connections,
        duration,
        requests,
      }) as unknown as autocannon.Instance & Promise<autocannon.Result>;
      void instance.on('response', (_client: unknown, status: number) => {
        if (status === 201) created++;
        onStatus(status);
      });
      return instance;
    };
    // Warm-up first, so the RSS baseline includes JIT code and the prerendered pages.
    await run(Math.min(3, seconds));
    const before = await memory();
    const statuses: Record<string, number> = {};
    const result = await run(seconds, (status) => {
      statuses[status] = (statuses[status] ?? 0) + 1;
    });
    const after = await memory();
    const health = (await (await fetch(`${site.url}/healthz`)).json()) as { status: string };
    if (health.status !== 'ok') throw new Error('the site is unhealthy after the load');
    // Read as the waitlist CLI does, beside the running server.
    const store = openSqliteStore({ dataDir: site.dataDir });
    const stored = await store.signups.count();
    await store.close();
    return {
      requests: result.requests.total,
      errors: result.errors + result.timeouts,
      non2xx: result.non2xx,
      statuses,
      before,
      after,
      signups: { sent: counter, created, stored },
    };
  } finally {
    await site.stop();
  }
}

if (require.main === module) {
  const seconds = Number(process.env.LOAD_SECONDS ?? 30);
  runLoad({ seconds, connections: 50 })
    .then((r) => {
      const growth = Math.max(r.after.rss - r.before.rss, r.after.heapUsed - r.before.heapUsed);
      const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
      console.log(
        `${r.requests} requests in ${seconds} s (${Math.round(r.requests / seconds)} req/s), statuses ${JSON.stringify(r.statuses)}`,
      );
      const { sent, created, stored } = r.signups;
      console.log(
        `errors ${r.errors}, non-2xx ${r.non2xx}; signups (warm-up included): ${sent} sent, ${created} answered 201, ${stored} stored`,
      );
      const change = (key: keyof LiveMemory) => `${key} ${mb(r.before[key])} → ${mb(r.after[key])}`;
      console.log(
        `after a full collection: ${change('heapUsed')}, ${change('rss')} (limit ${mb(RSS_GROWTH_LIMIT)} each)`,
      );
      // Requests still in flight when the run stops may be stored without their answer being
      // counted.
      const noneLost = stored >= created && stored <= sent;
      process.exitCode =
        r.errors === 0 && r.non2xx === 0 && noneLost && growth < RSS_GROWTH_LIMIT ? 0 : 1;
    })
    .catch((err) => {
      console.error(err);
      process.exitCode = 1;
    });
}
