// The console's export when the download is cancelled halfway: the export ends, the store's read
// (a PostgreSQL pool connection, a SQLite snapshot) is given back, and the audit log records the
// rows that went. Before, the export waited for a 'drain' that a closed socket never sends: on
// PostgreSQL five cancelled downloads held every connection of the pool, and the site's signups
// timed out behind them. And a whole download through gzip leaves no listener behind per wait.
// The audit log has the export before its first row leaves, and its outcome after: done,
// cancelled, or failed halfway with the rows that went.
import http from 'node:http';
import zlib from 'node:zlib';
import request from 'supertest';
import { createApp } from '../../../server/app';
import { emailKey } from '../../../shared/form-checks';
import type { PostgresStore } from '../../../server/store/postgres';
import type { SqliteStore } from '../../../server/store/sqlite';
import type { Store } from '../../../server/store/types';
import { testConfig } from '../../support/config';
import { addOperator, logIn } from '../../support/console';
import { listen } from '../../support/http';
import { describeEachEngine, ENGINES, type StoreEngine } from '../../support/stores';
import { until } from '../../support/wait';

/** About 20 MB of CSV: far more than the sockets between client and server hold. */
const ROWS = 20_000;
const DESCRIPTION = 'x'.repeat(1_000);

afterAll(() => Promise.all(ENGINES.map((engine) => engine.close())));

/** ROWS signups straight in SQL: the store's own add would take a while. */
async function seed(store: Store): Promise<void> {
  if (store.engine === 'postgres') {
    await (store as PostgresStore).pool.query(
      `INSERT INTO signups (email, email_key, description, created_at)
       SELECT 'row' || i || '@example.org', 'row' || i || '@example.org', $1,
              to_char(timestamp '2026-01-01' + i * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
       FROM generate_series(1, $2::int) AS i`,
      [DESCRIPTION, ROWS],
    );
    return;
  }
  const { db } = store as SqliteStore;
  const insert = db.prepare(
    'INSERT INTO signups (email, email_key, description, created_at) VALUES (?, ?, ?, ?)',
  );
  db.transaction(() => {
    for (let i = 1; i <= ROWS; i++)
      insert.run(
        `row${i}@example.org`,
        emailKey(`row${i}@example.org`),
        DESCRIPTION,
        new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
      );
  })();
}

/** A site on a store of ROWS signups, and an operator logged in to its console. */
async function seededConsole(engine: StoreEngine) {
  const store = await engine.open({ now: Date.now });
  await seed(store);
  const app = createApp(testConfig({ SITE_URL: 'https://orgnote.example' }), { store });
  await addOperator(store);
  const { cookie } = await logIn(app);
  return { store, app, cookie };
}

/** Starts the download, reads its first bytes, and hangs up. */
function cancelledDownload(port: number, cookie: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      { host: '127.0.0.1', port, path: '/admin/signups/export', headers: { Cookie: cookie } },
      (res) => {
        res.once('data', (chunk: Buffer) => {
          req.destroy();
          resolve(res.statusCode === 200 ? chunk.length : -1);
        });
      },
    );
    req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
  });
}

/** The audit log's actions, newest first. */
const actions = async (store: Store) =>
  (await store.audit.list({ limit: 20 })).map((entry) => entry.action);

/** Reads the download until the server ends or cuts it; its rows, the header aside. */
function download(port: number, cookie: string): Promise<number> {
  return new Promise((resolve, reject) => {
    let text = '';
    const req = http.get(
      { host: '127.0.0.1', port, path: '/admin/signups/export', headers: { Cookie: cookie } },
      (res) => {
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => void (text += chunk));
        res.once('close', () => resolve(Math.max(0, text.split('\r\n').length - 2)));
      },
    );
    req.on('error', reject);
  });
}

describeEachEngine((engine) => {
  const run = engine.unavailable ? it.skip : it;

  run(
    'records the export before its first row leaves, and its outcome after',
    async () => {
      const { store, app, cookie } = await seededConsole(engine);
      const { server, port } = await listen(app);
      try {
        // The first bytes are in the operator's hands: the log says an export started.
        const seenWhileRunning = await new Promise<string[]>((resolve, reject) => {
          const req = http.get(
            { host: '127.0.0.1', port, path: '/admin/signups/export', headers: { Cookie: cookie } },
            (res) => {
              res.once('data', () => {
                res.pause();
                void actions(store).then((seen) => {
                  req.destroy();
                  resolve(seen);
                }, reject);
              });
            },
          );
          req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
        });
        expect(seenWhileRunning.slice(0, 2)).toEqual(['export started', 'login']);
        await until('the cancelled export recorded', async () =>
          (await actions(store)).includes('export (cancelled)'),
        );
        expect((await actions(store)).slice(0, 2)).toEqual([
          'export (cancelled)',
          'export started',
        ]);
      } finally {
        server.close();
      }
    },
    60_000,
  );

  run(
    'records an export whose read fails halfway, with the rows that went before it failed',
    async () => {
      const { store, app, cookie } = await seededConsole(engine);
      // The store's read breaks after 5 000 rows, as a lost database connection would break it.
      const stream = store.signups.stream.bind(store.signups);
      store.signups.stream = async function* (since) {
        let rows = 0;
        for await (const row of stream(since)) {
          if (++rows > 5_000) throw new Error('connection to the database lost');
          yield row;
        }
      };
      const { server, port } = await listen(app);
      try {
        const received = await download(port, cookie);
        expect(received).toBeLessThan(ROWS);
        const [outcome, started] = await store.audit.list({ limit: 2 });
        expect([outcome.action, started.action]).toEqual(['export (failed)', 'export started']);
        expect(outcome.addresses).toBeGreaterThan(0);
        expect(outcome.addresses).toBeLessThanOrEqual(5_000);
        expect(received).toBeLessThanOrEqual(outcome.addresses);
      } finally {
        server.close();
      }
    },
    60_000,
  );

  run(
    'a cancelled download ends the export, gives its read back and is in the audit log',
    async () => {
      const { store, app, cookie } = await seededConsole(engine);

      const { server, port } = await listen(app);
      try {
        // More downloads than the PostgreSQL pool has connections (4 in tests).
        const cancelled = 5;
        for (let i = 0; i < cancelled; i++)
          expect(await cancelledDownload(port, cookie)).toBeGreaterThan(0);
        const entries = async () =>
          (await store.audit.list({ limit: 20 })).filter(
            (entry) => entry.action === 'export (cancelled)',
          );
        await until(
          'every cancelled export recorded',
          async () => (await entries()).length === cancelled,
        );
        for (const entry of await entries()) expect(entry.addresses).toBeGreaterThan(0);
        for (const entry of await entries()) expect(entry.addresses).toBeLessThan(ROWS);

        if (store.engine === 'postgres') {
          const { pool } = store as PostgresStore;
          await until('every pool connection idle', () => pool.totalCount === pool.idleCount);
        } else {
          // No reader is left on an old snapshot: the write-ahead log checkpoints in full.
          const [checkpoint] = (store as SqliteStore).db.pragma('wal_checkpoint(TRUNCATE)') as {
            busy: number;
          }[];
          expect(checkpoint.busy).toBe(0);
        }
        // And the site's own work goes on at once.
        const signup = await request(app)
          .post('/api/subscriptions')
          .field('email', 'after@example.org')
          .field('description', 'me');
        expect(signup.status).toBeLessThan(300);
        // A download let to finish is every row, the one just made too, recorded as the export.
        const whole = await request(app).get('/admin/signups/export').set('Cookie', cookie);
        expect(whole.text.split('\r\n').slice(1, -1)).toHaveLength(ROWS + 1);
        expect((await store.audit.list({ limit: 1 }))[0]).toMatchObject({
          action: 'export',
          addresses: ROWS + 1,
        });
      } finally {
        server.close();
      }
    },
    60_000,
  );

  run(
    'a whole download through gzip waits for the socket with one listener, not one a wait',
    async () => {
      const { app, cookie } = await seededConsole(engine);
      // compression hands res.on('drain') to its gzip stream, but once() removes the listener from
      // res: each wait for the socket left one behind, and Node logged a leak warning from the
      // 11th.
      const gzips = new Set<zlib.Gzip>();
      const on = zlib.Gzip.prototype.on;
      const spy = jest.spyOn(zlib.Gzip.prototype, 'on').mockImplementation(function (
        this: zlib.Gzip,
        event,
        listener,
      ) {
        if (event === 'drain') gzips.add(this);
        return on.call(this, event, listener);
      });
      try {
        const whole = await request(app)
          .get('/admin/signups/export')
          .set('Cookie', cookie)
          .set('Accept-Encoding', 'gzip');
        expect(whole.headers['content-encoding']).toBe('gzip');
        expect(whole.text.split('\r\n').slice(1, -1)).toHaveLength(ROWS);
        expect(gzips.size).toBe(1);
        for (const gzip of gzips) expect(gzip.listenerCount('drain')).toBe(1);
      } finally {
        spy.mockRestore();
      }
    },
    60_000,
  );
}, 'on $name');
