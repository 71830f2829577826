// What only the PostgreSQL store has to get right, on the run's shared server (one of the test's
// own where the server goes down): migrations
// that replicas starting together all survive, queues shared by several store instances (as by
// several replicas), counters exact across them, an outage answered fast and healed without a
// restart, and an export that streams. The behaviour both engines share is the contract suite's.
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { DEFAULT_QUEUE_LIMITS } from '../../../server/store';

const OUTBOX_LEASE_MS = DEFAULT_QUEUE_LIMITS.outboxLeaseMs;
import { MAIL_LEASE_MS } from '../../../server/store/mail-queue';
import { LATEST_VERSION, migrationSql } from '../../../server/store/migrations';
import {
  openPostgresStore,
  schemaVersion,
  type PostgresStore,
  type PostgresStoreOptions,
} from '../../../server/store/postgres';
import { QueueFullError, StoreUnavailableError } from '../../../server/store/errors';
import type { OutgoingMail } from '../../../server/store/mail-queue';
import type { SignupRequest } from '../../../server/backend/client';
import { query, type PostgresServer } from '../../../scripts/lib/launch/postgres';
import { describeWithPostgres, startPostgres } from '../../support/postgres';
import { sharedPostgres, type SharedPostgres } from '../../support/shared-postgres';

describeWithPostgres('the PostgreSQL store', () => {
  let shared: SharedPostgres;
  const opened: PostgresStore[] = [];

  beforeAll(async () => {
    shared = await sharedPostgres();
  }, 60_000);
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close().catch(() => {})));
  });
  afterAll(() => shared?.dropDatabases());

  /** A clock the test moves. */
  function clock(start = Date.parse('2026-11-01T12:00:00.000Z')) {
    let t = start;
    const now = () => t;
    now.advance = (ms: number) => void (t += ms);
    return now;
  }

  async function open(
    databaseUrl: string,
    options: Partial<PostgresStoreOptions> = {},
  ): Promise<PostgresStore> {
    const store = await openPostgresStore({ databaseUrl, timeoutMs: 2_000, ...options });
    opened.push(store);
    return store;
  }

  /**
   * `work` while a session of its own holds the signups table. `unlock` lets it go (ROLLBACK) when
   * the test says; the session ends after `work` either way.
   */
  async function whileSignupsLocked(
    databaseUrl: string,
    work: (unlock: () => Promise<void>) => Promise<void>,
  ): Promise<void> {
    const blocker = new pg.Client({ connectionString: databaseUrl });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE signups IN ACCESS EXCLUSIVE MODE');
      await work(async () => void (await blocker.query('ROLLBACK')));
    } finally {
      await blocker.end();
    }
  }

  const request = (email: string): SignupRequest => ({
    path: '/v1/waitlist',
    fields: [
      ['email', email],
      ['description', 'from the outbox'],
    ],
    forwarded: { 'x-forwarded-for': '203.0.113.9' },
    idempotencyKey: `key-${email}`,
  });

  const compose = (to: string, key: string): OutgoingMail => ({
    from: 'OrgNote <hello@orgnote.example>',
    to,
    subject: 'Your invitation',
    text: `key ${key}`,
    html: `<p>key ${key}</p>`,
    messageId: `<${key}@orgnote.example>`,
    date: '2026-11-01T12:00:00.000Z',
  });

  describe('migrations', () => {
    it('bring an empty database to the latest version once, and change nothing when run again', async () => {
      const url = await shared.createDatabase();
      const first = await open(url);
      expect(await schemaVersion(first.pool)).toBe(LATEST_VERSION);
      await first.close();
      const second = await open(url);
      await expect(second.ping()).resolves.toBeUndefined();

      const versions = await query(url, 'SELECT version FROM schema_migrations ORDER BY version');
      expect(versions.map((row) => row.version)).toEqual(
        Array.from({ length: LATEST_VERSION }, (_, i) => i + 1),
      );
    });

    it('let five replicas starting at once on an empty database all come up', async () => {
      const url = await shared.createDatabase();
      const stores = await Promise.all(Array.from({ length: 5 }, () => open(url)));

      for (const store of stores) await expect(store.ping()).resolves.toBeUndefined();
      const versions = await query(
        url,
        'SELECT version, COUNT(*)::int AS n FROM schema_migrations GROUP BY version ORDER BY version',
      );
      expect(versions).toEqual(
        Array.from({ length: LATEST_VERSION }, (_, i) => ({ version: i + 1, n: 1 })),
      );
      // Each can work on what another created.
      expect(await stores[3].signups.add({ email: 'first@example.org', description: '' })).toBe(
        true,
      );
      expect(await stores[1].signups.count()).toBe(1);
    });

    it('refuse a database a newer release has migrated, changing nothing', async () => {
      const url = await shared.createDatabase();
      const store = await open(url);
      await store.signups.add({ email: 'kept@example.org', description: '' });
      await store.close();
      await query(url, 'INSERT INTO schema_migrations (version) VALUES ($1)', [LATEST_VERSION + 1]);

      await expect(openPostgresStore({ databaseUrl: url, timeoutMs: 2_000 })).rejects.toThrow(
        `database schema version ${LATEST_VERSION + 1} is newer than this release (${LATEST_VERSION}); upgrade the site`,
      );
      expect(await query(url, 'SELECT email FROM signups')).toEqual([
        { email: 'kept@example.org' },
      ]);
    });

    it('upgrade a database of version 1 with its signups counted as confirmed from when they joined', async () => {
      const url = await shared.createDatabase();
      await query(
        url,
        'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
      );
      await query(url, migrationSql(1, 'postgres'));
      await query(url, 'INSERT INTO schema_migrations (version) VALUES (1)');
      await query(
        url,
        "INSERT INTO signups (email, email_key, created_at) VALUES ('Old@example.org', 'old@example.org', '2026-10-01T00:00:00.000Z')",
      );
      const store = await open(url);
      expect(await store.signups.list()).toMatchObject([
        { email: 'Old@example.org', confirmed_at: '2026-10-01T00:00:00.000Z', state: 'waitlisted' },
      ]);
      expect(await store.signups.oldestWaiting(10)).toEqual(['Old@example.org']);
    });

    it('make ping fail when the schema is older than this release, and not when a newer release migrated first', async () => {
      const url = await shared.createDatabase();
      const store = await open(url);
      await query(url, 'INSERT INTO schema_migrations (version) VALUES ($1)', [LATEST_VERSION + 1]);
      // A rolling upgrade: the next release's first replica migrated; this one stays ready.
      await expect(store.ping()).resolves.toBeUndefined();
      await query(url, 'DELETE FROM schema_migrations');
      await expect(store.ping()).rejects.toThrow(`schema version 0, expected ${LATEST_VERSION}`);
    });
  });

  describe('the outbox across replicas', () => {
    it('never hands one item to two claims running at the same moment', async () => {
      const url = await shared.createMigratedDatabase();
      const now = clock();
      const [a, b] = await Promise.all([open(url, { now }), open(url, { now })]);
      for (let i = 0; i < 50; i++) await a.outbox.enqueue(request(`queued${i}@example.org`));
      now.advance(60_000);

      const drain = async (store: PostgresStore) => {
        const ids: number[] = [];
        for (;;) {
          const items = await store.outbox.claim(3);
          if (items.length === 0) return ids;
          ids.push(...items.map((item) => item.id));
        }
      };
      // Two workers on each replica.
      const [a1, b1, a2, b2] = await Promise.all([drain(a), drain(b), drain(a), drain(b)]);
      const [fromA, fromB] = [
        [...a1, ...a2],
        [...b1, ...b2],
      ];

      const claimed = [...fromA, ...fromB];
      expect(claimed).toHaveLength(50);
      expect(new Set(claimed).size).toBe(50);
      expect(fromA.length).toBeGreaterThan(0);
      expect(fromB.length).toBeGreaterThan(0);
    });

    it('gives an item back once the lease of a replica that died has run out', async () => {
      const url = await shared.createMigratedDatabase();
      const now = clock();
      const dead = await open(url, { now });
      const alive = await open(url, { now });
      const id = await dead.outbox.enqueue(request('leased@example.org'));
      now.advance(60_000);
      expect((await dead.outbox.claim(10)).map((item) => item.id)).toEqual([id]);
      await dead.close(); // kill -9 mid-delivery: nothing recorded

      now.advance(OUTBOX_LEASE_MS - 1);
      expect(await alive.outbox.claim(10)).toEqual([]);
      now.advance(1);
      const [again] = await alive.outbox.claim(10);
      expect(again).toMatchObject({
        id,
        attempts: 0,
        state: 'pending',
        request: request('leased@example.org'),
      });
    });

    it('sets an item failing past the maximum age aside as dead, and sends it again on retry', async () => {
      const url = await shared.createMigratedDatabase();
      const now = clock();
      const store = await open(url, { now, limits: { maxAgeMs: 3_600_000 } });
      const id = await store.outbox.enqueue(request('old@example.org'));
      now.advance(3_600_001);
      const [item] = await store.outbox.claim(1);
      await store.outbox.failed(item, 'status 503');

      expect(await store.outbox.all()).toEqual([
        expect.objectContaining({ id, state: 'dead', attempts: 1, lastError: 'status 503' }),
      ]);
      expect(await store.outbox.depth()).toBe(0);
      expect(await store.outbox.nextDueAt()).toBeUndefined();
      now.advance(24 * 3_600_000);
      expect(await store.outbox.claim(10)).toEqual([]);

      expect(await store.outbox.retry(id)).toBe(true);
      expect(await store.outbox.retry(id)).toBe(false);
      expect(await store.outbox.nextDueAt()).toBe(now());
      expect((await store.outbox.claim(10)).map((i) => [i.id, i.state])).toEqual([[id, 'pending']]);
    });

    it('refuses a new item once full, and stores nothing of it', async () => {
      const url = await shared.createMigratedDatabase();
      const store = await open(url, { limits: { outboxMaxItems: 2 } });
      await store.outbox.enqueue(request('one@example.org'));
      await store.outbox.enqueue(request('two@example.org'));

      const refused = store.outbox.enqueue(request('three@example.org'));
      await expect(refused).rejects.toBeInstanceOf(QueueFullError);
      await expect(refused).rejects.toMatchObject({ queue: 'outbox', retryAfterSeconds: 60 });
      expect(await query(url, 'SELECT COUNT(*)::int AS n FROM outbox')).toEqual([{ n: 2 }]);
    });
  });

  describe('the mail queue across replicas', () => {
    async function invited(store: PostgresStore, count: number) {
      for (let i = 0; i < count; i++) {
        await store.signups.add({ email: `invitee${i}@example.org`, description: '' });
        await store.subscriptions.invite(`invitee${i}@example.org`, { again: false, compose });
      }
    }

    it('never hands one message to two claims, and gives back one whose sender died', async () => {
      const url = await shared.createMigratedDatabase();
      const now = clock();
      const [a, b] = await Promise.all([open(url, { now }), open(url, { now })]);
      await invited(a, 30);
      now.advance(MAIL_LEASE_MS); // the inviting CLI died before sending any

      const [fromA, fromB] = await Promise.all([a.mail.claim(20), b.mail.claim(20)]);
      const ids = [...fromA, ...fromB].map((m) => m.id);
      expect(ids).toHaveLength(30);
      expect(new Set(ids).size).toBe(30);
      expect(await a.mail.claim(20)).toEqual([]);

      now.advance(MAIL_LEASE_MS);
      expect(await b.mail.claim(50)).toHaveLength(30);
    });

    it('sets a message failing past the maximum age aside as dead, and queues it again on requeue', async () => {
      const url = await shared.createMigratedDatabase();
      const now = clock();
      const store = await open(url, { now, limits: { maxAgeMs: 3_600_000 } });
      await store.signups.add({ email: 'Late@Example.org', description: '' });
      const invitation = await store.subscriptions.invite('late@example.org', {
        again: false,
        compose,
      });
      if (invitation.outcome !== 'invited') throw new Error(invitation.outcome);
      now.advance(3_600_001);
      await store.mail.retry(invitation.mail, 'connection refused');

      expect(await store.mail.counts()).toEqual({ queued: 0, sent: 0, failed: 0, dead: 1 });
      expect(await store.mail.pending()).toEqual([
        expect.objectContaining({
          id: invitation.mail.id,
          to: 'Late@Example.org',
          state: 'dead',
          attempts: 1,
          lastError: 'connection refused',
        }),
      ]);
      expect(await store.mail.requeue(invitation.mail.id)).toBe(true);
      expect(await store.mail.requeue(invitation.mail.id)).toBe(false);
      const [again] = await store.mail.claim(5);
      expect(again).toEqual({
        id: invitation.mail.id,
        message: invitation.mail.message,
        attempts: 1,
      });
      expect(await store.mail.sent(again.id)).toBe(true);
      expect(await store.mail.sent(again.id)).toBe(false);
    });

    it('refuses an invitation once full, and keeps no key of it', async () => {
      const url = await shared.createMigratedDatabase();
      const store = await open(url, { limits: { mailMaxItems: 1 } });
      await invited(store, 1);
      await store.signups.add({ email: 'second@example.org', description: '' });

      const refused = store.subscriptions.invite('second@example.org', { again: false, compose });
      await expect(refused).rejects.toBeInstanceOf(QueueFullError);
      await expect(refused).rejects.toMatchObject({ queue: 'mail' });
      expect(await store.subscriptions.stateOf('second@example.org')).toBe('waitlisted');
      expect(
        await query(
          url,
          "SELECT COUNT(*)::int AS n FROM activation_keys WHERE email_key = 'second@example.org'",
        ),
      ).toEqual([{ n: 0 }]);
      expect(await store.mail.counts()).toMatchObject({ queued: 1 });
    });
  });

  describe('confirmations across replicas', () => {
    it('writes each owed confirmation once when two replicas write them at the same moment', async () => {
      const url = await shared.createMigratedDatabase();
      const [a, b] = await Promise.all([open(url), open(url)]);
      for (let i = 0; i < 40; i++)
        await (i % 2 ? a : b).signups.add(
          { email: `owed${i}@example.org`, description: '' },
          { confirm: true },
        );
      const mail = {
        validMs: 3_600_000,
        canMail: () => true,
        compose: (to: string, tokens: { confirm: string }): OutgoingMail => ({
          ...compose(to, tokens.confirm),
          messageId: `<${tokens.confirm}@x>`,
        }),
      };
      const rounds = await Promise.all(
        [a, b, a, b].map((store) => store.addressLinks.mailConfirmations(15, mail)),
      );
      const written = rounds.flat().map((queued) => queued.message.to);
      expect(written).toHaveLength(40);
      expect(new Set(written).size).toBe(40);
      expect(await a.addressLinks.mailConfirmations(15, mail)).toEqual([]);
    });
  });

  describe('subscriptions across replicas', () => {
    it('binds one key to one account when two accounts activate it at the same moment', async () => {
      const url = await shared.createMigratedDatabase();
      const [a, b] = await Promise.all([open(url), open(url)]);
      await a.signups.add({ email: 'shared@example.org', description: '' });
      const key = await a.subscriptions.issueKey('shared@example.org');

      const outcomes = await Promise.all([
        a.subscriptions.activate('shared@example.org', key, { provider: 'github', id: '1' }),
        b.subscriptions.activate('shared@example.org', key, { provider: 'github', id: '2' }),
      ]);
      expect(outcomes.map((o) => o.outcome).sort()).toEqual(['active', 'bound-elsewhere']);
    });

    it('gives one account one subscription when it activates two at the same moment', async () => {
      const url = await shared.createMigratedDatabase();
      const [a, b] = await Promise.all([open(url), open(url)]);
      const keys = [];
      for (const email of ['one@example.org', 'two@example.org']) {
        await a.signups.add({ email, description: '' });
        keys.push(await a.subscriptions.issueKey(email));
      }
      const account = { provider: 'github', id: '7' };
      // Repeated, so both transactions pass the account check before either binds, some of the
      // time.
      for (let round = 0; round < 5; round++) {
        await query(
          url,
          'UPDATE signups SET external_provider = NULL, external_id = NULL, activated_at = NULL',
        );
        const outcomes = await Promise.all([
          a.subscriptions.activate('one@example.org', keys[0], account),
          b.subscriptions.activate('two@example.org', keys[1], account),
        ]);
        expect(outcomes.map((o) => o.outcome).sort()).toEqual(['account-has-one', 'active']);
        expect(
          await query(url, "SELECT COUNT(*)::int AS n FROM signups WHERE external_id = '7'"),
        ).toEqual([{ n: 1 }]);
      }
    });
  });

  describe('the rate counters', () => {
    it('count exactly across three replicas hitting at once', async () => {
      const url = await shared.createMigratedDatabase();
      const now = clock(Date.parse('2026-11-01T12:00:10.000Z'));
      const stores = await Promise.all([
        open(url, { now }),
        open(url, { now }),
        open(url, { now }),
      ]);

      const results = await Promise.all(
        Array.from({ length: 100 }, (_, i) => stores[i % 3].rate.hit('203.0.113.7', 60_000)),
      );
      expect(results.map((r) => r.count).sort((x, y) => x - y)).toEqual(
        Array.from({ length: 100 }, (_, i) => i + 1),
      );
      expect(new Set(results.map((r) => r.resetAt))).toEqual(
        new Set([Date.parse('2026-11-01T12:01:00.000Z')]),
      );

      now.advance(60_000);
      expect(await stores[0].rate.hit('203.0.113.7', 60_000)).toEqual({
        count: 1,
        resetAt: Date.parse('2026-11-01T12:02:00.000Z'),
      });
    });

    it('delete windows that have ended as they go', async () => {
      const url = await shared.createMigratedDatabase();
      const now = clock();
      const store = await open(url, { now });
      for (let i = 0; i < 50; i++) await store.rate.hit(`old-${i}`, 60_000);
      now.advance(5 * 60_000);
      for (let i = 0; i < 100; i++) await store.rate.hit('current', 60_000);

      expect(await query(url, 'SELECT key, count FROM rate_counters')).toEqual([
        { key: 'current', count: 100 },
      ]);
    });
  });

  describe('an outage', () => {
    /** Stopped and started again by the tests: a server of this block's own. */
    let own: PostgresServer;
    beforeAll(async () => {
      own = await startPostgres();
    }, 60_000);
    afterEach(() => own.start());
    afterAll(() => own?.close());

    it('is answered with StoreUnavailableError at once, and healed without reopening the store', async () => {
      const url = await own.createDatabase();
      const timeoutMs = 3_000;
      const store = await open(url, { timeoutMs, poolSize: 3 });
      // Connections open and idle in the pool when the server goes: their drop must not crash us.
      await Promise.all(
        Array.from({ length: 3 }, (_, i) =>
          store.signups.add({ email: `before${i}@example.org`, description: '' }),
        ),
      );

      await own.stop();
      for (const attempt of [
        () => store.signups.add({ email: 'during@example.org', description: '' }),
        () => store.outbox.enqueue(request('during@example.org')),
        () => store.rate.hit('203.0.113.7', 60_000),
        () => store.ping(),
      ]) {
        const started = Date.now();
        const error = await attempt().then(
          () => undefined,
          (err: unknown) => err,
        );
        expect(error).toBeInstanceOf(StoreUnavailableError);
        expect(error).toMatchObject({
          retryAfterSeconds: 5,
          message: 'The waitlist is unavailable right now; please try again shortly',
        });
        expect(Date.now() - started).toBeLessThan(timeoutMs / 3);
      }

      await own.start();
      expect(await store.signups.add({ email: 'after@example.org', description: '' })).toBe(true);
      await expect(store.ping()).resolves.toBeUndefined();
      expect(await store.signups.count()).toBe(4);
    });

    it('answers within the timeout when the database is too slow, and the pool stays usable', async () => {
      const url = await shared.createMigratedDatabase();
      const timeoutMs = 500;
      const store = await open(url, { timeoutMs });
      // Another session holds the table: the insert waits for a lock that is not given back in
      // time.
      await whileSignupsLocked(url, async () => {
        const started = Date.now();
        await expect(
          store.signups.add({ email: 'slow@example.org', description: '' }),
        ).rejects.toBeInstanceOf(StoreUnavailableError);
        const took = Date.now() - started;
        expect(took).toBeGreaterThanOrEqual(timeoutMs - 50);
        expect(took).toBeLessThan(timeoutMs + 500);
      });
      expect(await store.signups.add({ email: 'slow@example.org', description: '' })).toBe(true);
    });

    // The second signup waits for the pool's one connection until the first's INSERT is cancelled
    // (timeoutMs after it began), so it starts 300 ms in to wait about 200 ms, under the client's
    // 250 ms margin, and 150 ms in to wait about 350 ms, past it, when its INSERT must run as a
    // transaction of one with the server's timeout brought down to what is left of its budget.
    it.each([
      ['under', 300],
      ['past', 150],
    ])(
      'stores nothing for a call it answered as unavailable, with a wait for a connection %s the margin: the server cancels first',
      async (_, secondAfterMs) => {
        const url = await shared.createMigratedDatabase();
        const timeoutMs = 500;
        const store = await open(url, { timeoutMs, poolSize: 1 });
        await whileSignupsLocked(url, async (unlock) => {
          const first = store.signups.add({ email: 'first@example.org', description: '' });
          await sleep(secondAfterMs);
          const secondStarted = Date.now();
          const second = store.signups.add({ email: 'second@example.org', description: '' });
          await expect(first).rejects.toBeInstanceOf(StoreUnavailableError);
          await expect(second).rejects.toBeInstanceOf(StoreUnavailableError);
          // The second caller is answered within its budget and the client's margin…
          expect(Date.now() - secondStarted).toBeLessThan(timeoutMs + 500);
          // …and the lock goes the moment it has its answer, as another request's would.
          await unlock();
        });
        // Room for a statement still waiting on the server to take the lock and commit.
        await sleep(300);
        expect((await store.signups.list()).map((s) => s.email)).toEqual([]);
      },
    );

    it('stores a call that waited past the margin when the lock goes in time, and gives its connection back with the full timeout', async () => {
      const url = await shared.createMigratedDatabase();
      const timeoutMs = 1_000;
      const store = await open(url, { timeoutMs, poolSize: 1 });
      await whileSignupsLocked(url, async (unlock) => {
        const first = store.signups.add({ email: 'first@example.org', description: '' });
        await sleep(50);
        // Waits about 350 ms for the one connection: about 650 ms left for its INSERT.
        const second = store.signups.add({ email: 'second@example.org', description: '' });
        await sleep(350);
        await unlock();
        await expect(first).resolves.toBe(true);
        await expect(second).resolves.toBe(true);
      });
      // The same connection, and a lock held longer than the second call had left: had its shorter
      // timeout outlived its transaction, this call would be cancelled.
      await whileSignupsLocked(url, async (unlock) => {
        const third = store.signups.add({ email: 'third@example.org', description: '' });
        await sleep(800);
        await unlock();
        await expect(third).resolves.toBe(true);
      });
      expect((await store.signups.list()).map((s) => s.email).sort()).toEqual([
        'first@example.org',
        'second@example.org',
        'third@example.org',
      ]);
    });

    it('is StoreUnavailableError when opening a store on a server that is down', async () => {
      const url = await own.createDatabase();
      await own.stop();
      await expect(
        openPostgresStore({ databaseUrl: url, timeoutMs: 2_000 }),
      ).rejects.toBeInstanceOf(StoreUnavailableError);
    });
  });

  describe('the export', () => {
    const ROWS = 20_000;

    /** ROWS signups one second apart, straight in SQL (the store's own add would take a while). */
    async function manySignups(url: string) {
      await query(
        url,
        `INSERT INTO signups (email, email_key, description, created_at)
       SELECT 'user' || i || '@example.org', 'user' || i || '@example.org', '',
              to_char(timestamp '2026-01-01' + i * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
       FROM generate_series(1, $1::int) AS i`,
        [ROWS],
      );
    }

    it('streams every signup newest first, a batch at a time', async () => {
      const url = await shared.createMigratedDatabase();
      const store = await open(url, { poolSize: 2 });
      await manySignups(url);

      let expected = ROWS;
      let openWhileReading: unknown[] | undefined;
      for await (const row of store.signups.stream()) {
        expect(row.email).toBe(`user${expected}@example.org`);
        if (expected === ROWS) {
          // After the first row, the query is still open on the server: the rest is not read yet.
          openWhileReading = await query(
            url,
            "SELECT state FROM pg_stat_activity WHERE query LIKE 'SELECT email, description, created_at%' AND pid <> pg_backend_pid() AND datname = current_database()",
          );
        }
        expected--;
      }
      expect(expected).toBe(0);
      expect(openWhileReading).toEqual([{ state: expect.not.stringMatching(/^idle$/) }]);
      expect(store.pool.totalCount - store.pool.idleCount).toBe(0);
    });

    it('reads from `since` on, and gives its connection back when the reader stops early', async () => {
      const url = await shared.createMigratedDatabase();
      const store = await open(url, { poolSize: 1 });
      await manySignups(url);

      const since = [];
      for await (const row of store.signups.stream('2026-01-01T05:33:1'))
        since.push(row.created_at);
      expect(since).toEqual([
        '2026-01-01T05:33:20.000Z',
        '2026-01-01T05:33:19.000Z',
        '2026-01-01T05:33:18.000Z',
        '2026-01-01T05:33:17.000Z',
        '2026-01-01T05:33:16.000Z',
        '2026-01-01T05:33:15.000Z',
        '2026-01-01T05:33:14.000Z',
        '2026-01-01T05:33:13.000Z',
        '2026-01-01T05:33:12.000Z',
        '2026-01-01T05:33:11.000Z',
        '2026-01-01T05:33:10.000Z',
      ]);

      let read = 0;
      for await (const _row of store.signups.stream()) if (++read === 10) break;
      expect(store.pool.idleCount).toBe(store.pool.totalCount);
      // The one connection of the pool is free again.
      expect(await store.signups.count()).toBe(ROWS);
    });
  });
});
