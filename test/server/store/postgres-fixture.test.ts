// The PostgreSQL fixture the shared-database tests stand on: a server of their own, fresh
// databases, an outage that looks like one to a client (refused, then back on the same port with
// the same data), and no server left running behind a test, however it ended.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { TEST_TMP_ENV, tempDataDir } from '../../support/config';
import { query, startPostgres, type TestPostgres } from '../../support/postgres';
import { until } from '../../support/wait';

describe('the test PostgreSQL server', () => {
  let server: TestPostgres;
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
});

describe('closing the test PostgreSQL server', () => {
  it('ends its processes and removes its folder', async () => {
    const server = await startPostgres();
    const pid = postmasterPid(server.dataDir);
    await server.close();

    expect(isRunning(pid)).toBe(false);
    expect(fs.existsSync(server.dataDir)).toBe(false);
    await expect(query(server.url, 'SELECT 1')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

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

describe("a Jest worker's shared PostgreSQL server", () => {
  // A run folder of its own, so the worker's real shared server is not the one stopped here.
  const runFolder = tempDataDir();
  const ownRun = process.env[TEST_TMP_ENV];
  beforeAll(() => {
    process.env[TEST_TMP_ENV] = runFolder;
    // As root, the postgres user must pass through the real run folder to reach this one, as
    // startPostgres arranges for the run folder it is given.
    if (ownRun) fs.chmodSync(ownRun, fs.statSync(ownRun).mode | 0o001);
  });
  afterAll(() => {
    process.env[TEST_TMP_ENV] = ownRun;
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

  it('is one server for every file the worker runs, drops the databases a file made, and is gone after the teardown', async () => {
    const first = await loadedByAnotherFile().sharedPostgres();
    const second = await loadedByAnotherFile().sharedPostgres();
    expect(second.port).toBe(first.port);

    const url = await first.createDatabase();
    await query(url, 'CREATE TABLE kept (n int)');
    await first.dropDatabases();
    // 3D000: invalid_catalog_name, the database does not exist.
    await expect(query(url, 'SELECT 1')).rejects.toMatchObject({ code: '3D000' });

    await loadedByAnotherFile().stopSharedServers(runFolder);
    await expect(
      query(`postgres://postgres@127.0.0.1:${first.port}/postgres`, 'SELECT 1'),
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
