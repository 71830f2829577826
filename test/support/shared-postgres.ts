// One PostgreSQL server per Jest worker, for the test files that only need fresh databases (the
// store contract, the multi-replica tests): initdb and the start cost a second or more of a busy
// machine, paid once per worker instead of once per file. Files that stop or
// restart their server (outages, the fixture's own tests) start one of their own (postgres.ts).
//
// Jest gives each test file a module registry of its own, so a module variable dies with the
// file; the server is found again through a note in the run's temp folder, named after this
// process and thread. It runs until the worker ends: then its watcher (postgres.ts) stops it and
// removes its folder, as for any server whose owner went away.
import fs from 'node:fs';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import { TEST_TMP_ENV } from './config';
import { createDatabaseOn, query, startPostgres } from './postgres';

export interface SharedPostgres {
  port: number;
  /** A fresh, empty database on the shared server; returns its URL. */
  createDatabase(): Promise<string>;
  /**
   * Drops every database this handle made, ending their connections (afterAll: the server outlives
   * the file).
   */
  dropDatabases(): Promise<void>;
}

interface Note {
  port: number;
  dataDir: string;
}

/** This file's view of the server (outside Jest, where there is no run folder, the process's). */
let found: Promise<Note> | undefined;

export async function sharedPostgres(): Promise<SharedPostgres> {
  const runFolder = process.env[TEST_TMP_ENV];
  const { port } = await (found ??= runFolder ? fromNote(runFolder) : start());
  const serverUrl = `postgres://postgres@127.0.0.1:${port}`;
  const made: string[] = [];
  return {
    port,
    async createDatabase() {
      const databaseUrl = await createDatabaseOn(serverUrl);
      made.push(databaseUrl);
      return databaseUrl;
    },
    async dropDatabases() {
      for (const databaseUrl of made.splice(0)) {
        // createDatabaseOn's names are t_ and hex digits: nothing to quote.
        await query(
          `${serverUrl}/postgres`,
          `DROP DATABASE IF EXISTS ${new URL(databaseUrl).pathname.slice(1)} WITH (FORCE)`,
        );
      }
    },
  };
}

const NOTE_PREFIX = 'postgres-of-worker-';

/** This worker's server, started by the first file that asks and found again by the later ones. */
async function fromNote(runFolder: string): Promise<Note> {
  const file = path.join(runFolder, `${NOTE_PREFIX}${process.pid}-${threadId}.json`);
  const noted = fs.existsSync(file)
    ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Note)
    : undefined;
  if (noted && isRunning(noted.dataDir)) return noted;
  const note = await start();
  fs.writeFileSync(file, JSON.stringify(note));
  return note;
}

async function start(): Promise<Note> {
  const { port, dataDir } = await startPostgres();
  return { port, dataDir };
}

/**
 * For the global teardown: ends the run's shared servers and waits until they are gone, so the run
 * folder can be removed under no running server (which would still be writing into it). The
 * watchers would end them too, but only once their worker is gone, and in band that is Jest itself.
 */
export async function stopSharedServers(runFolder: string): Promise<void> {
  const pids = fs
    .readdirSync(runFolder)
    .filter((name) => name.startsWith(NOTE_PREFIX))
    .map((name) =>
      postmasterPid(
        (JSON.parse(fs.readFileSync(path.join(runFolder, name), 'utf8')) as Note).dataDir,
      ),
    )
    .filter((pid): pid is number => pid !== undefined && isAlive(pid));
  for (const pid of pids) process.kill(pid, 'SIGQUIT'); // an immediate stop: the data goes anyway
  const deadline = Date.now() + 10_000;
  while (pids.some(isAlive) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50));
}

/** Is the server of this cluster folder still up? */
function isRunning(dataDir: string): boolean {
  const pid = postmasterPid(dataDir);
  return pid !== undefined && isAlive(pid);
}

/** The postmaster's PID, from the first line of the cluster's lock file (gone once it stopped). */
function postmasterPid(dataDir: string): number | undefined {
  try {
    return Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return undefined;
  }
}

/** A process that ended but was not reaped yet (a zombie, seconds in some containers) has ended. */
function isAlive(pid: number): boolean {
  try {
    return !/^State:\s*Z/m.test(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}
