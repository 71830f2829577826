// Leases with an owner across two replicas on one PostgreSQL (server/store/leases.ts): a replica
// paused with SIGSTOP in the middle of a delivery outlives its lease; the other replica claims the
// item and records its own attempt; when the paused one resumes, its late outcome changes
// nothing, and the item ends delivered, exactly as the live worker recorded it.
import { query } from '../../../scripts/lib/launch/postgres';
import { closedPort, startBackend, type TestBackend } from '../../support/backend';
import { describeWithPostgres } from '../../support/postgres';
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

    // First attempt: the replica that claimed it is paused while the backend holds its request,
    // which only that replica's own timeout ends ("no answer within 1000 ms"). Every later attempt
    // (the other replica's, once the lease has run out) is answered at once: 503 until the checks
    // below are done, then 201. So a timeout in the outbox could only be the paused replica's.
    backend = await startBackend(backendPort);
    const received = backend.received;
    let paused: number | undefined;
    let released = false;
    backend.respondWith((req, res) => {
      if (received.length === 1) {
        paused = req.originalUrl.startsWith(`${prefix(0)}/`) ? 0 : 1;
        servers[paused].child.kill('SIGSTOP');
        return; // never answered
      }
      if (!released) return res.status(503).json({ error: 'busy' });
      res.status(201).json({ ok: true });
    });
    const outbox = () => query<OutboxRow>(databaseUrl, 'SELECT attempts, last_error FROM outbox');

    await until('the first attempt reaches the backend', () => paused !== undefined, 10_000);
    const live = servers[1 - paused!];
    const fromLive = () => received.filter((r) => r.url.startsWith(`${prefix(1 - paused!)}/`));
    await until('the live replica has recorded its failed attempt', async () => {
      const rows = await outbox();
      return rows[0]?.last_error === 'status 503';
    });
    expect(received.slice(1)).toEqual(fromLive());

    servers[paused!].child.kill('SIGCONT');
    await until('the resumed replica has met its timeout and found the item taken over', () =>
      servers[paused!].output().includes('outbox item taken over by another worker'),
    );
    // The live replica's record stands: its error, and its attempts (each answered 503 at once and
    // tried again after 2 s, 4 s …, by either replica once the other has resumed). The late
    // timeout did not count: at most every attempt after the paused one, one of them maybe still
    // on its way to the table.
    const [row] = await outbox();
    expect(row.last_error).toBe('status 503');
    expect(row.attempts).toBeGreaterThanOrEqual(1);
    expect(row.attempts).toBeLessThanOrEqual(received.length - 1);
    expect(live.output()).not.toContain('taken over');

    released = true;
    await until(
      'the outbox is empty',
      async () => (await query(databaseUrl, 'SELECT id FROM outbox')).length === 0,
    );
    // The paused attempt, the live replica's 503 and the 201 (from either replica): one item, one
    // key, which the backend deduplicates.
    expect(received.length).toBeGreaterThanOrEqual(3);
    expect(new Set(received.map((r) => r.headers['idempotency-key'])).size).toBe(1);
    expect(received.every((r) => r.fields?.email === 'paused@example.org')).toBe(true);
  });
});
