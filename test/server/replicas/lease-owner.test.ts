// Leases with an owner across two replicas on one PostgreSQL (server/store/leases.ts): a replica
// paused with SIGSTOP in the middle of a delivery outlives its lease; the other replica claims the
// item and records its own attempt; when the paused one resumes, its late outcome changes
// nothing, and the item ends delivered, exactly as the live worker recorded it.
import { closedPort, startBackend, type TestBackend } from '../../support/backend';
import { describeWithPostgres, query } from '../../support/postgres';
import { replicasOnSharedPostgres, signUp } from '../../support/replicas';
import { until } from '../../support/wait';

/** The outbox lease is 3 × this + 5 s (server/store/leases.ts): 8 s. */
const UPSTREAM_TIMEOUT_MS = 1_000;

describeWithPostgres('leases with an owner across replicas', () => {
  let backend: TestBackend | undefined;
  // Its afterEach kills the replicas (SIGKILL ends a stopped one too) before the backend closes.
  const replicas = replicasOnSharedPostgres();

  afterEach(async () => {
    await backend?.close();
    backend = undefined;
  });

  interface OutboxRow {
    attempts: number;
    last_error: string | null;
  }

  it("ignores the late outcome of a replica paused past its lease, and keeps the live replica's record", async () => {
    const databaseUrl = await replicas.createMigratedDatabase();
    const backendPort = await closedPort();
    // Each replica reaches the backend under a path of its own, so the backend tells them apart.
    const prefix = (replica: number) => `/replica${replica}`;
    const servers = await replicas.start(2, (i) => ({
      DATABASE_URL: databaseUrl,
      BACKEND_URL: `http://127.0.0.1:${backendPort}${prefix(i)}`,
      UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS),
      LOG_LEVEL: 'warn',
      SIGNUP_RATE_LIMIT: '0',
    }));
    const answer = await signUp(servers[0], 'paused@example.org'); // the backend is down: queued
    expect([answer.status, JSON.parse(answer.body)]).toEqual([202, { queued: true }]);

    // First attempt: the replica that claimed it is paused while the backend holds its request.
    // Second attempt (the other replica, once the lease has run out): answered 503 at once.
    // Third attempt: held until the checks below are done, then 201.
    backend = await startBackend(backendPort);
    const received = backend.received;
    let paused: number | undefined;
    let releaseThird!: () => void;
    const third = new Promise<void>((resolve) => (releaseThird = resolve));
    backend.respondWith(async (req, res) => {
      const attempt = received.length;
      if (attempt === 1) {
        paused = req.originalUrl.startsWith(`${prefix(0)}/`) ? 0 : 1;
        servers[paused].child.kill('SIGSTOP');
        return; // never answered: the paused replica's own timeout ends it when it resumes
      }
      if (attempt === 2) return res.status(503).json({ error: 'busy' });
      await third;
      res.status(201).json({ ok: true });
    });

    await until('the first attempt reaches the backend', () => paused !== undefined, 10_000);
    const live = servers[1 - paused!];
    await until(
      'the live replica has recorded its failed attempt',
      async () => {
        const rows = await query<OutboxRow>(databaseUrl, 'SELECT attempts, last_error FROM outbox');
        return rows[0]?.last_error === 'status 503';
      },
      15_000,
    );
    expect(received[1].url.startsWith(`${prefix(1 - paused!)}/`)).toBe(true);

    servers[paused!].child.kill('SIGCONT');
    await until('the resumed replica has met its timeout and found the item taken over', () =>
      servers[paused!].output().includes('outbox item taken over by another worker'),
    );
    // The live replica's record stands: one attempt, its error. The late timeout did not count.
    expect(await query<OutboxRow>(databaseUrl, 'SELECT attempts, last_error FROM outbox')).toEqual([
      { attempts: 1, last_error: 'status 503' },
    ]);
    expect(live.output()).not.toContain('taken over');

    releaseThird();
    await until(
      'the outbox is empty',
      async () => (await query(databaseUrl, 'SELECT id FROM outbox')).length === 0,
      10_000,
    );
    // Three attempts; a fourth and more only where the held third outlived its lease (a machine
    // under stress-ng), taken over as any stalled attempt is: the same item, the same key, which
    // the backend deduplicates.
    expect(received.length).toBeGreaterThanOrEqual(3);
    expect(new Set(received.map((r) => r.headers['idempotency-key'])).size).toBe(1);
    expect(received.every((r) => r.fields?.email === 'paused@example.org')).toBe(true);
  });
});
