// The outbox shared by three replicas in PostgreSQL (docs/decisions/0005-outbox.md): signups the
// backend could not take, on whichever replica they arrived, wait in one queue and reach the
// backend exactly once when it returns; a replica killed with -9 in the middle of its deliveries
// loses none of them: what it had claimed comes back once its lease runs out, and only what it had
// in flight can reach the backend twice (with the same Idempotency-Key, so the backend drops it).
import http from 'node:http';
import { closedPort, startBackend, type Received, type TestBackend } from '../../support/backend';
import { query } from '../../../scripts/lib/launch/postgres';
import { describeWithPostgres } from '../../support/postgres';
import { sharedPostgres, type SharedPostgres } from '../../support/shared-postgres';
import { replicaSet, signUp } from '../../support/replicas';
import { until } from '../../support/wait';

describeWithPostgres('replicas on one PostgreSQL database', () => {
  /**
   * The outbox lease is 3 × this + 5 s (server/store/outbox.ts): 14 s for an item of a killed
   * replica.
   */
  const UPSTREAM_TIMEOUT_MS = 3_000;

  let postgres: SharedPostgres;
  let backend: TestBackend | undefined;
  const replicas = replicaSet();

  beforeAll(async () => {
    postgres = await sharedPostgres();
  });
  afterEach(async () => {
    await replicas.killAll();
    await backend?.close();
    backend = undefined;
  });
  afterAll(() => postgres?.dropDatabases());

  const settings = (databaseUrl: string, backendUrl: string) => ({
    DATABASE_URL: databaseUrl,
    BACKEND_URL: backendUrl,
    UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS),
    LOG_LEVEL: 'warn',
    SIGNUP_RATE_LIMIT: '0',
  });

  /**
   * Posts the signups round-robin over the replicas; each must be queued (202: the backend is
   * down).
   */
  async function queueSignups(servers: { port: number }[], emails: string[]): Promise<void> {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 10 });
    try {
      const answers = await Promise.all(
        emails.map((email, i) => signUp(servers[i % servers.length], email, { agent })),
      );
      expect(answers.map((a) => [a.status, JSON.parse(a.body)])).toEqual(
        emails.map(() => [202, { queued: true }]),
      );
    } finally {
      agent.destroy();
    }
  }

  /** The addresses still waiting in the outbox, pending or dead. */
  async function outboxEmails(databaseUrl: string): Promise<string[]> {
    const rows = await query<{ fields: string }>(
      databaseUrl,
      'SELECT fields::text AS fields FROM outbox',
    );
    return rows.map(
      (row) => Object.fromEntries(JSON.parse(row.fields) as [string, string][]).email,
    );
  }

  const emailOf = (r: Received) => String(r.fields?.email);
  const keyOf = (r: Received) => String(r.headers['idempotency-key']);

  /** How many times each value occurs. */
  function tally(values: string[]): Map<string, number> {
    const counts = new Map<string, number>();
    for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
    return counts;
  }

  describe('the outbox shared by three replicas', () => {
    it('queues signups on every replica while the backend is down, and delivers each exactly once when it returns', async () => {
      const databaseUrl = await postgres.createMigratedDatabase();
      const backendPort = await closedPort();
      const servers = await replicas.start(
        3,
        settings(databaseUrl, `http://127.0.0.1:${backendPort}`),
      );
      const emails = Array.from({ length: 60 }, (_, i) => `queued${i}@example.org`);

      await queueSignups(servers, emails);
      expect((await outboxEmails(databaseUrl)).sort()).toEqual([...emails].sort());
      // The workers have tried the backend and failed, so it really returns to a queue being
      // retried.
      await until(
        'a delivery failed against the closed port',
        async () =>
          (await query(databaseUrl, 'SELECT 1 FROM outbox WHERE attempts > 0')).length > 0,
        10_000,
      );

      backend = await startBackend(backendPort);
      const received = backend.received;
      await until(
        'the outbox is empty',
        async () => (await outboxEmails(databaseUrl)).length === 0,
        20_000,
      );
      // one more poll of every worker: nothing goes out twice
      await new Promise((resolve) => setTimeout(resolve, 1_500));

      expect(received.map(emailOf).sort()).toEqual([...emails].sort());
      expect(new Set(received.map(keyOf)).size).toBe(emails.length);
      expect(
        received.every(
          (r) => r.url === '/api/subscriptions' && r.fields?.description === 'replicas',
        ),
      ).toBe(true);
      expect(await query(databaseUrl, 'SELECT id FROM outbox')).toEqual([]);
    });

    it('loses nothing when a replica is killed with -9 mid-delivery: only its deliveries in flight go out twice', async () => {
      const databaseUrl = await postgres.createMigratedDatabase();
      const backendPort = await closedPort();
      // Each replica reaches the backend under a path of its own, so the backend tells which one
      // delivered what. Replica 0 is the one killed.
      const prefix = (replica: number) => `/replica${replica}`;
      const servers = await replicas.start(3, (i) =>
        settings(databaseUrl, `http://127.0.0.1:${backendPort}${prefix(i)}`),
      );
      const [victim] = servers;
      const emails = Array.from({ length: 60 }, (_, i) => `in-flight${i}@example.org`);
      await queueSignups(servers, emails);

      // A slow backend: the others' deliveries are answered after a second, the victim's never (its
      // connections end when it dies). Every answer that does go out is recorded.
      backend = await startBackend(backendPort);
      const received = backend.received;
      const answered: string[] = [];
      backend.respondWith((req, res) => {
        res.on('finish', () => answered.push(String(req.headers['idempotency-key'])));
        if (req.originalUrl.startsWith(`${prefix(0)}/`)) return;
        setTimeout(() => res.status(201).json({ ok: true }), 1_000);
      });
      const fromVictim = () => received.filter((r) => r.url.startsWith(`${prefix(0)}/`));
      await until('the victim has deliveries in flight', () => fromVictim().length > 0, 10_000);
      await new Promise((resolve) => setTimeout(resolve, 300)); // the rest of its batch arrives
      victim.child.kill('SIGKILL');
      await victim.exited;

      const inFlight = fromVictim();
      // It had claimed at most one batch (20), and none of it was answered; all of it still waits.
      expect(inFlight.length).toBeLessThanOrEqual(20);
      expect(inFlight.filter((r) => answered.includes(keyOf(r)))).toEqual([]);
      expect(await outboxEmails(databaseUrl)).toEqual(
        expect.arrayContaining(inFlight.map(emailOf)),
      );

      // The victim's items come back to the others once its lease (14 s) runs out.
      await until(
        'the outbox is empty',
        async () => (await outboxEmails(databaseUrl)).length === 0,
        30_000,
      );
      await new Promise((resolve) => setTimeout(resolve, 1_500)); // one more poll of every worker

      // At least once: every signup was answered by the backend, each exactly once.
      expect(answered.sort()).toEqual([...new Set(received.map(keyOf))].sort());
      expect(new Set(answered).size).toBe(emails.length);
      expect([...new Set(received.map(emailOf))].sort()).toEqual([...emails].sort());
      // At most the victim's in-flight deliveries twice, each time with its one Idempotency-Key.
      const twice = [...tally(received.map(emailOf))]
        .filter(([, n]) => n > 1)
        .map(([email]) => email);
      expect(twice.sort()).toEqual(inFlight.map(emailOf).sort());
      expect(Math.max(...tally(received.map(emailOf)).values())).toBeLessThanOrEqual(2);
      for (const email of twice)
        expect(new Set(received.filter((r) => emailOf(r) === email).map(keyOf)).size).toBe(1);
      expect(await query(databaseUrl, 'SELECT id FROM outbox')).toEqual([]);
    });
  });
});
