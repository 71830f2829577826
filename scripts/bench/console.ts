// npm run bench:console: the operators' console against BENCH_CONSOLE_ROWS signups
// (default 1 000 000) spread over a year, on SQLite and on PostgreSQL, through the built production
// server: p95 of the dashboard, a search, and a table page deep in the list (keyset), 20 requests
// each after 2 to warm up; then the time one login's password check takes, and a burst of 100
// login attempts at once (at most 5 may be checked). Targets: dashboard ≤ 300 ms, search ≤ 200 ms,
// deep page ≤ 100 ms, password ≤ 250 ms. Exits non-zero on a miss.
import { hashPassword, verifyPassword } from '../../server/console/password';
import { openSqliteStore } from '../../server/store';
import { openPostgresStore } from '../../server/store/postgres';
import type { Store } from '../../server/store/types';
import { emailKey } from '../../shared/form-checks';
import { startPostgres } from '../lib/launch/postgres';
import { startBuiltServer } from '../lib/launch/server';
import { percentile } from './lib/stats';

const ROWS = Number(process.env.BENCH_CONSOLE_ROWS ?? 1_000_000);
const REQUESTS = 20;
const TARGET_MS = { dashboard: 300, search: 200, deepPage: 100, password: 250 };
const PASSWORD = 'correct horse battery staple';
const YEAR_MS = 365 * 24 * 3_600_000;
const START = Date.parse('2025-11-25T00:00:00.000Z');

const at = (i: number) => new Date(START + Math.floor((i * YEAR_MS) / ROWS)).toISOString();
const email = (i: number) => `person-${i}@example.org`;

async function seedSqlite(dataDir: string): Promise<void> {
  const store = openSqliteStore({ dataDir });
  const insert = store.db.prepare(
    'INSERT INTO signups (email, email_key, description, created_at, confirmed_at, invited_at, activated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  store.db.transaction(() => {
    for (let i = 0; i < ROWS; i++) {
      const time = at(i);
      // One in ten invited, one in thirty activated: the chart has three lines.
      insert.run(
        email(i),
        emailKey(email(i)),
        'org-mode',
        time,
        time,
        i % 10 === 0 ? time : null,
        i % 30 === 0 ? time : null,
      );
    }
  })();
  await addAdmin(store);
  await store.close();
}

async function seedPostgres(databaseUrl: string): Promise<void> {
  const store = await openPostgresStore({ databaseUrl, timeoutMs: 600_000 });
  await store.pool.query(
    `INSERT INTO signups (email, email_key, description, created_at, confirmed_at, invited_at, activated_at)
     SELECT 'person-' || i || '@example.org', 'person-' || i || '@example.org', 'org-mode', t, t,
            CASE WHEN i % 10 = 0 THEN t END, CASE WHEN i % 30 = 0 THEN t END
     FROM generate_series(0, $1::int - 1) AS i,
          LATERAL (SELECT to_char(timestamp '2025-11-25' + (i::float8 * 365 / $1) * interval '1 day', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS t) AS times`,
    [ROWS],
  );
  await store.pool.query('VACUUM ANALYZE signups');
  await addAdmin(store);
  await store.close();
}

async function addAdmin(store: Store): Promise<void> {
  await store.admins.add('ops@example.org', await hashPassword(PASSWORD));
}

const p95 = (values: number[]) => percentile(values, 0.95);

async function timed(url: string, cookie: string): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < REQUESTS + 2; i++) {
    const started = performance.now();
    const res = await fetch(url, { headers: { cookie }, redirect: 'manual' });
    await res.text();
    if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
    if (i >= 2) times.push(performance.now() - started);
  }
  return times;
}

async function measure(name: string, env: NodeJS.ProcessEnv, dataDir?: string) {
  const site = await startBuiltServer({
    env: { ...env, DATA_DIR: dataDir, LOG_LEVEL: 'warn', SIGNUP_RATE_LIMIT: '0' },
    logFile: 'site.log',
  });
  try {
    const login = await fetch(`${site.url}/admin/login`, {
      method: 'POST',
      body: new URLSearchParams({ email: 'ops@example.org', password: PASSWORD, code: '' }),
      redirect: 'manual',
    });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
    // A row 90 % of the way down the newest-first list: its keyset for the next page.
    const deep = ROWS - Math.floor(ROWS * 0.9);
    const after = `${at(deep)}|${deep + 1}`;
    const results = {
      dashboard: p95(await timed(`${site.url}/admin`, cookie)),
      search: p95(await timed(`${site.url}/admin/signups?q=person-12345%40`, cookie)),
      deepPage: p95(
        await timed(
          `${site.url}/admin/signups?order=newest&after=${encodeURIComponent(after)}`,
          cookie,
        ),
      ),
    };
    // A burst of 100 attempts at once, on this engine's counters.
    const burst = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        fetch(`${site.url}/admin/login`, {
          method: 'POST',
          body: new URLSearchParams({
            email: 'burst@example.org',
            password: `wrong ${i}`,
            code: '',
          }),
          redirect: 'manual',
        }).then((r) => r.status),
      ),
    );
    return {
      name,
      ...results,
      checked: burst.filter((s) => s === 401).length,
      throttled: burst.filter((s) => s === 429).length,
    };
  } finally {
    await site.stop();
  }
}

async function main(): Promise<void> {
  const fs = await import('node:fs');
  const os = await import('node:os');
  const path = await import('node:path');
  const rows: Awaited<ReturnType<typeof measure>>[] = [];

  const sqliteDir = fs.mkdtempSync(path.join(os.tmpdir(), 'orgnote-console-'));
  let started = Date.now();
  await seedSqlite(sqliteDir);
  console.log(`SQLite: ${ROWS} signups seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  rows.push(await measure('SQLite', { DATABASE_URL: '' }, sqliteDir));

  const pg = await startPostgres();
  try {
    const databaseUrl = await pg.createDatabase();
    started = Date.now();
    await seedPostgres(databaseUrl);
    console.log(
      `PostgreSQL: ${ROWS} signups seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    rows.push(await measure('PostgreSQL', { DATABASE_URL: databaseUrl }));
  } finally {
    await pg.stop();
  }

  const hash = await hashPassword(PASSWORD);
  const checks: number[] = [];
  for (let i = 0; i < 20; i++) {
    const t = performance.now();
    await verifyPassword(i % 2 ? PASSWORD : 'wrong', hash);
    checks.push(performance.now() - t);
  }
  const password = p95(checks);

  console.table(
    rows.map((r) => ({
      store: r.name,
      'dashboard p95 ms': r.dashboard.toFixed(0),
      'search p95 ms': r.search.toFixed(0),
      'deep page p95 ms': r.deepPage.toFixed(0),
      'burst: checked / 429': `${r.checked} / ${r.throttled}`,
    })),
  );
  console.log(`password check p95: ${password.toFixed(0)} ms (target ≤ ${TARGET_MS.password})`);
  const misses = rows.flatMap((r) => [
    ...(r.dashboard > TARGET_MS.dashboard
      ? [`${r.name} dashboard ${r.dashboard.toFixed(0)} ms > ${TARGET_MS.dashboard}`]
      : []),
    ...(r.search > TARGET_MS.search
      ? [`${r.name} search ${r.search.toFixed(0)} ms > ${TARGET_MS.search}`]
      : []),
    ...(r.deepPage > TARGET_MS.deepPage
      ? [`${r.name} deep page ${r.deepPage.toFixed(0)} ms > ${TARGET_MS.deepPage}`]
      : []),
    ...(r.checked > 5 ? [`${r.name} burst checked ${r.checked} passwords > 5`] : []),
  ]);
  if (password > TARGET_MS.password)
    misses.push(`password check ${password.toFixed(0)} ms > ${TARGET_MS.password}`);
  for (const miss of misses) console.log(`MISS ${miss}`);
  if (misses.length === 0) console.log('all targets met');
  fs.rmSync(sqliteDir, { recursive: true, force: true });
  process.exitCode = misses.length ? 1 : 0;
}

void main();
