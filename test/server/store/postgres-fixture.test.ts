// The PostgreSQL fixtures the shared-database tests stand on: a server of a test's own, fresh
// databases, an outage that looks like one to a client (refused, then back on the same port with
// the same data), and no server left running behind a test, however it ended; and the one server
// the whole run shares, with each worker's databases copied from a template it migrated once.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import pg from 'pg';
import { query, type PostgresServer } from '../../../scripts/lib/launch/postgres';
import { LATEST_VERSION } from '../../../server/store/migrations';
import { TEST_TMP_ENV, tempDataDir } from '../../support/config';
import { describeWithPostgres, startPostgres } from '../../support/postgres';
import { until } from '../../support/wait';

describeWithPostgres('the test PostgreSQL server', () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(() => server?.close());

  it('hands out fresh, empty databases on a port of its own', async () => {
    const first = await server.createDatabase();
    const second = await server.createDatabase();
    await query(first, 'CREATE TABLE signups (email text)');

    expect(server.port).not.toBe(5432);
    expect(first).toMatch(
      new RegExp(`^postgres://postgres@127\\.0\\.0\\.1:${server.port}/t_[0-9a-f]+$`),
    );
    expect(second).not.toBe(first);
    expect(await query(first, 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
    expect(
      await query(second, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"),
    ).toEqual([]);
  });

  it('refuses connections while stopped, drops open ones, and comes back on the same port with its data', async () => {
    const url = await server.createDatabase();
    await query(url, 'CREATE TABLE kept (n int)');
    await query(url, 'INSERT INTO kept VALUES ($1)', [7]);
    const open = new pg.Client({ connectionString: url });
    open.on('error', () => {}); // the drop is also emitted; the failed query below is what counts
    await open.connect();

    await server.stop();
    await expect(query(url, 'SELECT 1')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await expect(open.query('SELECT 1')).rejects.toThrow();

    await server.start();
    expect(await query(url, 'SELECT n FROM kept')).toEqual([{ n: 7 }]);
    await open.end();
  });

  // Last: the server of the tests above is the one closed.
  it('ends its processes and removes its folder when closed', async () => {
    const pid = postmasterPid(server.dataDir);
    await server.close();

    expect(isRunning(pid)).toBe(false);
    expect(fs.existsSync(server.dataDir)).toBe(false);
    await expect(query(server.url, 'SELECT 1')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});

describeWithPostgres('a test PostgreSQL server left behind', () => {
  // A child process that starts a server and never closes it, as a crashed or killed test would.
  // It tells the server's folder and PID itself: once it crashed, both may be gone already.
  const FIXTURE = path.resolve(__dirname, '../../support/postgres.ts');
  const leaveItRunning = `
    const fs = require('node:fs');
    const { startPostgres } = require(${JSON.stringify(FIXTURE)});
    startPostgres().then((server) => {
      const pid = fs.readFileSync(server.dataDir + '/postmaster.pid', 'utf8').split('\\n')[0];
      console.log(server.dataDir + ' ' + pid);
      setInterval(() => {}, 1000);
      if (process.argv[1] === 'crash') throw new Error('a test crashed');
    });`;

  it.each([
    ['an uncaught error', 'crash'],
    ['SIGKILL', 'kill'],
  ])('leaves no server running when the process ends with %s', async (_, how) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '-e', leaveItRunning, how], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const [dataDir, pid] = (await firstLine(child.stdout)).split(' ');
    expect(isRunning(Number(pid))).toBe(true);
    if (how === 'kill') child.kill('SIGKILL');

    // The cleanup runs in a process of its own, right after the child ended.
    await until(
      'the server stopped and its folder is gone',
      () => !isRunning(Number(pid)) && !fs.existsSync(dataDir),
    );
  });
});

describeWithPostgres("the test run's shared PostgreSQL server", () => {
  // A run folder of its own, so the run's real shared server is not the one stopped here. This
  // worker plays the run's main process, which the server must outlive (global-setup.ts).
  const runFolder = tempDataDir();
  const ownRun = process.env[TEST_TMP_ENV];
  beforeAll(() => {
    process.env[TEST_TMP_ENV] = runFolder;
    fs.writeFileSync(path.join(runFolder, '.owner-pid'), String(process.pid));
    // As root, the postgres user must pass through the real run folder to reach this one, as
    // startPostgres arranges for the run folder it is given.
    if (ownRun) fs.chmodSync(ownRun, fs.statSync(ownRun).mode | 0o001);
  });
  afterAll(async () => {
    process.env[TEST_TMP_ENV] = ownRun;
    await loadedByAnotherFile().stopSharedServers(runFolder);
  });

  /** shared-postgres.ts as a test file loads it: each file has a module registry of its own. */
  function loadedByAnotherFile(): typeof import('../../support/shared-postgres') {
    let loaded!: typeof import('../../support/shared-postgres');
    jest.isolateModules(() => {
      // isolateModules takes a synchronous load.
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
      loaded = require('../../support/shared-postgres');
    });
    return loaded;
  }

  /** Another worker of the run: a process that asks for the server, tells its port, and ends. */
  async function portSeenByAnotherWorker(): Promise<number> {
    const child = spawn(process.execPath, ['--import', 'tsx', '-e', TELL_PORT], {
      env: { ...process.env, [TEST_TMP_ENV]: runFolder },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const ended = new Promise((resolve) => child.once('exit', resolve));
    const port = Number(await firstLine(child.stdout));
    expect(await ended).toBe(0);
    return port;
  }
  const TELL_PORT = `
    const { sharedPostgres } = require(${JSON.stringify(path.resolve(__dirname, '../../support/shared-postgres.ts'))});
    sharedPostgres().then((server) => console.log(server.port));`;

  it('is one server for every worker and file, started once when several ask at the same moment, and outlives the worker that started it', async () => {
    const [first, second] = await Promise.all([
      portSeenByAnotherWorker(),
      portSeenByAnotherWorker(),
    ]);
    const inThisFile = await loadedByAnotherFile().sharedPostgres();
    const inAnotherFile = await loadedByAnotherFile().sharedPostgres();

    expect([second, inThisFile.port, inAnotherFile.port]).toEqual([first, first, first]);
    const clusters = fs.readdirSync(runFolder).filter((name) => name.startsWith('orgnote-pg-'));
    expect(clusters).toHaveLength(1);
    const url = await inThisFile.createDatabase();
    expect(await query(url, 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
  }, 60_000); // two processes that load TypeScript, an initdb and a start, on a busy machine

  it("copies each migrated database from the worker's one template: the latest schema, no rows, nothing another copy added", async () => {
    const postgres = await loadedByAnotherFile().sharedPostgres();
    const first = await postgres.createMigratedDatabase();
    await query(
      first,
      "INSERT INTO signups (email, email_key, created_at) VALUES ('a@example.org', 'a@example.org', '2026-01-01T00:00:00.000Z')",
    );
    await query(first, 'CREATE TABLE added (n int)');
    const second = await (await loadedByAnotherFile().sharedPostgres()).createMigratedDatabase();

    const versions = await query(second, 'SELECT max(version) AS version FROM schema_migrations');
    expect(versions).toEqual([{ version: LATEST_VERSION }]);
    expect(await query(second, 'SELECT COUNT(*)::int AS n FROM signups')).toEqual([{ n: 0 }]);
    expect(await query(second, "SELECT to_regclass('added') AS added")).toEqual([{ added: null }]);
    const templates = await query(
      `postgres://postgres@127.0.0.1:${postgres.port}/postgres`,
      "SELECT datname FROM pg_database WHERE datname LIKE 'template\\_%'",
    );
    expect(templates).toEqual([{ datname: `template_${process.pid}_${threadId}` }]);
    await postgres.dropDatabases();
  });

  it('drops the databases a file made, and is gone after the teardown', async () => {
    const postgres = await loadedByAnotherFile().sharedPostgres();
    const url = await postgres.createDatabase();
    const copy = await postgres.createMigratedDatabase();
    await query(url, 'CREATE TABLE kept (n int)');
    await postgres.dropDatabases();
    // 3D000: invalid_catalog_name, the database does not exist.
    await expect(query(url, 'SELECT 1')).rejects.toMatchObject({ code: '3D000' });
    await expect(query(copy, 'SELECT 1')).rejects.toMatchObject({ code: '3D000' });

    await loadedByAnotherFile().stopSharedServers(runFolder);
    await expect(
      query(`postgres://postgres@127.0.0.1:${postgres.port}/postgres`, 'SELECT 1'),
    ).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});

/** The server's main process, from the first line of its lock file. */
function postmasterPid(dataDir: string): number {
  return Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
}

/**
 * Linux's view: a process that ended but was not yet reaped by its parent (a zombie) counts as
 * ended.
 */
function isRunning(pid: number): boolean {
  try {
    const state = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1][0];
    return state !== 'Z';
  } catch {
    return false;
  }
}

function firstLine(stream: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    stream.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\n')) resolve(text.split('\n')[0]);
    });
    stream.once('end', () => reject(new Error(`ended before a line: ${text}`)));
  });
}
