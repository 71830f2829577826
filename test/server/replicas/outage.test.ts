// PostgreSQL going away under running replicas, and not being there at start-up. While it is down
// every replica answers signups with a quick 503 (Retry-After, JSON error) and /readyz with 503, so
// the load balancer takes them out of rotation, yet stays alive (/healthz 200); once it is back
// they recover by themselves, with no restart. A replica started with no database to reach gives
// up after DATABASE_CONNECT_SECONDS with a message that names DATABASE_URL, never its password.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort } from '../../../scripts/lib/launch/ports';
import { query, type PostgresServer } from '../../../scripts/lib/launch/postgres';
import { closedPort } from '../../support/backend';
import { tempDataDir } from '../../support/config';
import { describeWithPostgres, startPostgres } from '../../support/postgres';
import { replicaSet, send, signUp } from '../../support/replicas';
import { until } from '../../support/wait';

const ENTRY = path.resolve(__dirname, '../../../dist/server/index.js');
const UPSTREAM_TIMEOUT_MS = 2_000;

/** A server started by hand, expected to exit by itself. */
let lone: ChildProcess | undefined;

afterEach(() => {
  if (lone && lone.exitCode === null && lone.signalCode === null) lone.kill('SIGKILL');
  lone = undefined;
});

const json = (body: string) => JSON.parse(body) as unknown;

describeWithPostgres('PostgreSQL going down', () => {
  /** Stopped and started again by the tests: a server of this file's own. */
  let postgres: PostgresServer;
  const replicas = replicaSet();

  beforeAll(async () => {
    postgres = await startPostgres();
  });
  afterEach(async () => {
    await replicas.killAll();
    await postgres?.start(); // a test that failed while it was down leaves it running for the next
  });
  afterAll(() => postgres?.close());

  describe('replicas while PostgreSQL is down', () => {
    it('answer signups and /readyz with 503 but stay alive, and recover once it is back, without a restart', async () => {
      const databaseUrl = await postgres.createDatabase();
      const servers = await replicas.start(3, {
        DATABASE_URL: databaseUrl,
        LOG_LEVEL: 'warn',
        SIGNUP_RATE_LIMIT: '0',
        UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS),
        DATABASE_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS),
      });
      const pids = servers.map((server) => server.child.pid);

      await postgres.stop();
      for (const [i, server] of servers.entries()) {
        const signup = await signUp(server, `during-outage${i}@example.org`);
        expect(signup.status).toBe(503);
        expect(Number(signup.headers['retry-after'])).toBeGreaterThan(0);
        expect(signup.headers['content-type']).toMatch(/^application\/json/);
        expect(json(signup.body)).toEqual({ error: expect.stringMatching(/\S/) });
        expect(signup.ms).toBeLessThan(UPSTREAM_TIMEOUT_MS + 1_000);

        const ready = await send(server, '/readyz');
        expect([ready.status, json(ready.body)]).toEqual([503, { status: 'unavailable' }]);
        expect(ready.ms).toBeLessThan(UPSTREAM_TIMEOUT_MS + 1_000);
        const health = await send(server, '/healthz');
        expect([health.status, json(health.body)]).toMatchObject([200, { status: 'ok' }]);
      }

      await postgres.start();
      const restarted = Date.now();
      await until(
        'every replica is ready again',
        async () =>
          (await Promise.all(servers.map((server) => send(server, '/readyz')))).every(
            (a) => a.status === 200,
          ),
        10_000,
      );
      // Without a restart, within seconds: the margin is for a machine under stress-ng.
      expect(Date.now() - restarted).toBeLessThan(10_000);
      for (const [i, server] of servers.entries()) {
        const signup = await signUp(server, `after-outage${i}@example.org`);
        expect([signup.status, json(signup.body)]).toEqual([
          201,
          { email: `after-outage${i}@example.org` },
        ]);
      }
      const stored = await query<{ email: string }>(
        databaseUrl,
        'SELECT email FROM signups ORDER BY email',
      );
      expect(stored.map((row) => row.email)).toEqual([
        'after-outage0@example.org',
        'after-outage1@example.org',
        'after-outage2@example.org',
      ]);
      expect(servers.map((server) => [server.child.pid, server.child.exitCode])).toEqual(
        pids.map((pid) => [pid, null]),
      );
    });
  });

  describe('the plain form after PostgreSQL was down at the first render', () => {
    const issuedOf = (html: string) =>
      /<input type="hidden" name="issued" value="([^"]+)"/.exec(html)?.[1];

    it('serves / and takes no-JavaScript signups again once it is back, without a restart', async () => {
      const databaseUrl = await postgres.createDatabase();
      const [server] = await replicas.start(1, {
        DATABASE_URL: databaseUrl,
        LOG_LEVEL: 'silent',
        PROOF_OF_WORK: 'on',
        SIGNUP_RATE_LIMIT: '0',
        DATABASE_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS),
      });

      // The first render reads the key that signs the form's issue time, and finds no store.
      await postgres.stop();
      expect((await send(server, '/')).status).toBe(500);

      await postgres.start();
      let page = await send(server, '/');
      await until(
        '/ is served again',
        async () => (page = await send(server, '/')).status === 200,
        5_000,
      );
      const issued = issuedOf(page.body);
      expect(issued).toEqual(expect.any(String));

      // The field is good a few seconds after the render: until then the form comes back.
      const form = new URLSearchParams({
        email: 'plain-form@example.org',
        description: 'after the outage',
        issued: issued!,
      }).toString();
      let joined = await send(server, '/?index', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form,
      });
      await until(
        'the plain form is taken',
        async () => {
          if (joined.status === 303) return true;
          expect(joined.body).toContain('Almost there: press Join again.');
          joined = await send(server, '/?index', {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: form,
          });
          return false;
        },
        10_000,
      );
      expect(joined.headers.location).toBe('/?joined');
      const stored = await query<{ email: string }>(databaseUrl, 'SELECT email FROM signups');
      expect(stored).toEqual([{ email: 'plain-form@example.org' }]);
    });
  });
});

describe('a replica started while PostgreSQL cannot be reached', () => {
  it('exits 1 after DATABASE_CONNECT_SECONDS, naming DATABASE_URL but not its password', async () => {
    const dbPort = await closedPort();
    const started = Date.now();
    const child = (lone = spawn(process.execPath, [ENTRY], {
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'production',
        HOST: '127.0.0.1',
        PORT: String(await freePort()),
        DATA_DIR: tempDataDir(),
        LOG_LEVEL: 'warn',
        DATABASE_URL: `postgres://postgres:s3cret-pw@127.0.0.1:${dbPort}/x`,
        DATABASE_CONNECT_SECONDS: '2',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    }));
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) =>
      child.once('exit', (code) => resolve(code)),
    );
    expect(await exited).toBe(1);

    // It did wait for the database (a compose file starts both at once), and gave up by its 2 s:
    // well before the 30 s default, with room for a process start on a loaded machine (6 s seen
    // under stress-ng --cpu 2).
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(output).toContain('DATABASE_URL');
    expect(output).toContain(`127.0.0.1:${dbPort}`);
    expect(output).not.toContain('s3cret-pw');
  });
});
