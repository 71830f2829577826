// A private PostgreSQL server (Debian's postgresql package), for the tests, the benchmarks and the
// chaos run. Each server gets a fresh cluster in a temp folder and a port of its own, so it never
// touches the system cluster on 5432 or another run's server. It can go down and come back on the
// same port and data, so a DATABASE_URL stays valid across an outage. PostgreSQL refuses to run
// as root: as root the binaries run as the `postgres` user.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { guardAgainstLeftovers } from './postgres-guard';

export { postmasterPid } from './postgres-guard';
import { portIsFree, releasePort, reservePort } from './ports';

export interface PostgresServer {
  port: number;
  /** postgres://postgres@127.0.0.1:PORT/postgres */
  url: string;
  /** The cluster's folder; the server's log is `log` in it. */
  dataDir: string;
  /**
   * A fresh, empty database on this server; returns its URL
   * (postgres://postgres@127.0.0.1:PORT/<name>).
   */
  createDatabase(): Promise<string>;
  /** Stops the server: connections are refused, and open client connections are dropped. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data. */
  start(): Promise<void>;
  /**
   * Stops the server and removes its folder; done for it as well when the process ends without it.
   */
  close(): Promise<void>;
}

/** Does this machine have the PostgreSQL server binaries (and, as root, a user to run them as)? */
export function postgresAvailable(): boolean {
  return binDir() !== undefined && (!runningAsRoot() || postgresUser() !== undefined);
}

export interface StartOptions {
  /**
   * A process the server must outlive (a server the whole test run shares lives as long as the
   * run); by default it ends with the process that started it.
   */
  outlive?: number;
  /** The folder the cluster's folder is made in (the test run's); the system's temp by default. */
  parent?: string;
}

export async function startPostgres({
  outlive,
  parent,
}: StartOptions = {}): Promise<PostgresServer> {
  if (!postgresAvailable()) {
    throw new Error(
      'PostgreSQL is not installed: initdb and pg_ctl are needed (Debian package postgresql)',
    );
  }
  const dataDir = makeDataDir(parent);
  const guard = guardAgainstLeftovers(dataDir, outlive);
  let port: number;
  try {
    // trust: no passwords, on a server that listens on loopback only. --no-sync and the C locale
    // keep initdb short.
    await runPg(
      'initdb',
      ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C'],
      dataDir,
    );
    port = await startOnFreePort(dataDir);
  } catch (err) {
    await guard.close();
    throw err;
  }
  guard.started();

  let running = true;
  const url = `postgres://postgres@127.0.0.1:${port}`;
  return {
    port,
    url: `${url}/postgres`,
    dataDir,
    createDatabase: () => createDatabaseOn(url),
    async stop() {
      if (!running) return;
      // fast: open connections are ended at once (as a crashed or restarted server drops them),
      // rather than waited for as `smart` would.
      await runPg('pg_ctl', ['stop', '-D', dataDir, '-m', 'fast', '-w'], dataDir);
      running = false;
      guard.stopped();
    },
    async start() {
      if (running) return;
      await pgCtlStart(dataDir, port);
      running = true;
      guard.started();
    },
    async close() {
      await guard.close();
      releasePort(port);
    },
  };
}

/**
 * A fresh database on the server at `serverUrl` (postgres://user@host:port), a copy of `template`
 * (by default an empty one); returns its URL.
 */
export async function createDatabaseOn(serverUrl: string, template = 'template0'): Promise<string> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  // template0, not template1: nothing a test created in template1 can leak into a fresh database.
  // FILE_COPY copies the files whole, in a third of the time of WAL_LOG (PostgreSQL 15's default),
  // which writes every page to the WAL as well; its checkpoints cost little with fsync off.
  await query(
    `${serverUrl}/postgres`,
    `CREATE DATABASE ${name} TEMPLATE ${template} STRATEGY FILE_COPY`,
  );
  return `${serverUrl}/${name}`;
}

/** Runs one statement on its own connection and returns the rows (for checks and set-ups). */
export async function query<R extends pg.QueryResultRow = pg.QueryResultRow>(
  url: string,
  sql: string,
  params?: unknown[],
): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  // A connection dropped mid-query rejects the query and also emits 'error': the rejection is what
  // the caller sees, and an 'error' nobody listens to would crash the process.
  client.on('error', () => {});
  await client.connect();
  try {
    return (await client.query<R>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/**
 * The bin folder of the newest PostgreSQL under /usr/lib/postgresql (Debian puts each major version
 * in its own).
 */
function binDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root) : [];
  return versions
    .sort((a, b) => Number(b) - Number(a))
    .map((version) => path.join(root, version, 'bin'))
    .find(
      (dir) => fs.existsSync(path.join(dir, 'initdb')) && fs.existsSync(path.join(dir, 'pg_ctl')),
    );
}

function runningAsRoot(): boolean {
  return process.getuid?.() === 0;
}

/** uid and gid of the `postgres` user (the one Debian's package creates), from /etc/passwd. */
function postgresUser(): { uid: number; gid: number } | undefined {
  const line = fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (!line) return undefined;
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/**
 * An empty folder for the cluster, in `parent` when given. As root, the folder goes to the
 * postgres user, and `parent` (a test run's folder: mkdtemp's 0700, owned by root) gets the
 * execute bit for others so that user can reach it (but not list it).
 */
function makeDataDir(parent?: string): string {
  const dataDir = fs.mkdtempSync(path.join(parent ?? os.tmpdir(), 'orgnote-pg-'));
  if (runningAsRoot()) {
    const { uid, gid } = postgresUser()!;
    fs.chownSync(dataDir, uid, gid);
    if (parent) fs.chmodSync(parent, fs.statSync(parent).mode | 0o001);
  }
  return dataDir;
}

/**
 * Starts the server on a random port from 5500-9999 (the system cluster's 5432 is below it),
 * trying another when that one is taken. Apart from the kernel's ephemeral range (32768-60999)
 * and from the other fixtures' bands (smtp.ts 10000-19999, backend.ts's closedPort 20000-29999):
 * while the server is stopped, an ephemeral port could become the source port of a client's own
 * connection to it (a TCP self-connect, which hangs instead of being refused) or be taken by
 * another socket before start() binds it again.
 */
async function startOnFreePort(dataDir: string): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    // Reserved (ports.ts) until close(): no other run takes it while the server is stopped.
    const port = reservePort(5_500, 9_999);
    if (!(await portIsFree(port))) {
      releasePort(port);
      continue;
    }
    try {
      await pgCtlStart(dataDir, port);
      return port;
    } catch (err) {
      releasePort(port);
      // Taken between the probe and postgres's bind, by something outside the tests most likely.
      if (attempt >= 10 || !/Address already in use/.test(String(err))) throw err;
    }
  }
}

/**
 * fsync, synchronous commits and full-page writes are off: a test server need not survive a
 * crash of its machine, and without them a commit waits for no disk. Tests that kill -9 the
 * *site* still find every write it had acknowledged, since the database server keeps running.
 * A test that kills postgres itself would need synchronous_commit on: off, the last commits
 * before the kill may be lost (their WAL was still in postgres's memory).
 */
async function pgCtlStart(dataDir: string, port: number): Promise<void> {
  const options = [
    `-p ${port} -h 127.0.0.1 -k ${socketDir(dataDir, port)}`,
    '-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200',
  ].join(' ');
  const log = path.join(dataDir, 'log');
  const logSize = fs.existsSync(log) ? fs.statSync(log).size : 0;
  try {
    await runPg(
      'pg_ctl',
      ['start', '-D', dataDir, '-w', '-t', '30', '-l', log, '-o', options],
      dataDir,
    );
  } catch (err) {
    // pg_ctl only says the server did not start; why (a port taken, say) is in the log.
    const why = fs.readFileSync(log, 'utf8').slice(logSize);
    throw new Error(`${(err as Error).message}\n${why}`);
  }
}

/**
 * The Unix socket goes in the cluster's folder (not /var/run/postgresql, the system cluster's),
 * for a developer's `psql -h <dataDir> -p <port>`; the tests connect over TCP. pg_ctl passes its
 * -o through /bin/sh, hence the quotes. A socket path longer than the kernel's limit (107 bytes)
 * would stop the server from starting, so a deep temp folder gets no socket at all ('').
 */
function socketDir(dataDir: string, port: number): string {
  const fits = Buffer.byteLength(path.join(dataDir, `.s.PGSQL.${port}.lock`)) <= 107;
  return fits ? `'${dataDir.replace(/'/g, `'\\''`)}'` : "''";
}

/** initdb or pg_ctl, as the postgres user when we are root; rejects with its output on failure. */
function runPg(tool: 'initdb' | 'pg_ctl', args: string[], dataDir: string): Promise<string> {
  const [file, argv] = pgCommand(tool, args);
  return new Promise((resolve, reject) => {
    // In the cluster's folder: the postgres user may not be allowed into ours (it warns if so).
    execFile(file, argv, { cwd: dataDir }, (err, stdout, stderr) => {
      if (err)
        reject(
          new Error(
            `${tool} ${args[0]} failed (${err.message.split('\n')[0]}):\n${stdout}${stderr}`,
          ),
        );
      else resolve(stdout);
    });
  });
}

function pgCommand(tool: string, args: string[]): [string, string[]] {
  const file = path.join(binDir()!, tool);
  return runningAsRoot() ? ['runuser', ['-u', 'postgres', '--', file, ...args]] : [file, args];
}
