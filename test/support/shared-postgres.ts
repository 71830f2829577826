// One PostgreSQL server for the whole test run, for the test files that only need fresh databases
// (the store contract, the multi-replica tests): initdb and the start cost a second or more of a
// busy machine, paid once per run. Files that stop or restart their server (outages, the
// fixture's own tests) start one of their own (postgres.ts).
//
// The first worker that asks claims the start (a file created only if absent, O_EXCL, in the
// run's temp folder) and starts it; the others wait for its note to appear there. It runs until
// the global teardown stops it (stopSharedServers), or, should the run end without one, until the
// run's main process has ended: then its watcher (scripts/lib/launch/postgres-guard.ts) stops it.
//
// Each worker migrates one template database once; every database it hands out after that is a
// copy of it (CREATE DATABASE … TEMPLATE), which takes a fraction of running the migrations.
import fs from 'node:fs';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import pg from 'pg';
import { isAlive } from '../../scripts/lib/launch/ports';
import { createDatabaseOn, postmasterPid, query } from '../../scripts/lib/launch/postgres';
import { migrate } from '../../server/store/postgres/migrate';
import { TEST_TMP_ENV } from './config';
import { startPostgres } from './postgres';

export interface SharedPostgres {
  port: number;
  /** A fresh, empty database on the shared server; returns its URL. */
  createDatabase(): Promise<string>;
  /** A fresh database with the latest schema and no rows, as the site's migrations leave it. */
  createMigratedDatabase(): Promise<string>;
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

/** The note as the starting worker writes it: the server, or why it did not start. */
type Written = Note | { error: string };

/** In the run folder: who claimed the start (its PID), then the note of the server it started. */
const CLAIM_FILE = 'postgres.claim';
const NOTE_FILE = 'postgres.json';
/** global-setup.ts's record of the run's main process, which the server must outlive. */
const RUN_OWNER_FILE = '.owner-pid';

/** This file's view of the server (outside Jest, where there is no run folder, the process's). */
let found: Promise<Note> | undefined;
/** This worker's template database, once this file has made or found it. */
let template: Promise<string> | undefined;

export async function sharedPostgres(): Promise<SharedPostgres> {
  const runFolder = process.env[TEST_TMP_ENV];
  const { port } = await (found ??= runFolder ? runServer(runFolder) : start());
  const serverUrl = `postgres://postgres@127.0.0.1:${port}`;
  const made: string[] = [];
  const remember = (databaseUrl: string) => {
    made.push(databaseUrl);
    return databaseUrl;
  };
  return {
    port,
    createDatabase: async () => remember(await createDatabaseOn(serverUrl)),
    async createMigratedDatabase() {
      const name = await (template ??= migratedTemplate(serverUrl));
      return remember(await createDatabaseOn(serverUrl, name));
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

/** The run's server: started by the worker that claims it first, found by the others. */
async function runServer(runFolder: string): Promise<Note> {
  const claim = path.join(runFolder, CLAIM_FILE);
  const note = path.join(runFolder, NOTE_FILE);
  try {
    fs.writeFileSync(claim, String(process.pid), { flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    await noteWritten(note, Number(fs.readFileSync(claim, 'utf8')));
    return readNote(runFolder);
  }
  let written: Written;
  try {
    written = await start(runOwner(runFolder));
  } catch (err) {
    written = { error: (err as Error).message };
  }
  // Renamed into place, so no reader ever sees half a note.
  const draft = `${note}.${process.pid}-${threadId}`;
  fs.writeFileSync(draft, JSON.stringify(written));
  fs.renameSync(draft, note);
  return readNote(runFolder);
}

async function start(outlive?: number): Promise<Note> {
  const { port, dataDir } = await startPostgres({ outlive });
  return { port, dataDir };
}

function readNote(runFolder: string): Note {
  const written = JSON.parse(fs.readFileSync(path.join(runFolder, NOTE_FILE), 'utf8')) as Written;
  if ('error' in written)
    throw new Error(`The test run's PostgreSQL server did not start: ${written.error}`);
  if (!isRunning(written.dataDir))
    throw new Error(`The test run's PostgreSQL server (${written.dataDir}) has stopped`);
  return written;
}

/** The run's main process, when global-setup.ts has recorded it. */
function runOwner(runFolder: string): number | undefined {
  try {
    return Number(fs.readFileSync(path.join(runFolder, RUN_OWNER_FILE), 'utf8')) || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Resolves once `note` exists (the starting worker renames it into place). A claimant that ends
 * without writing it would leave us waiting: its end is checked once a second, as no event
 * reports the end of a process that is not our child.
 */
function noteWritten(note: string, claimant: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const watcher = fs.watch(path.dirname(note));
    const check = setInterval(() => {
      if (fs.existsSync(note)) done();
      else if (!isAlive(claimant))
        done(new Error(`The worker starting the test run's PostgreSQL server (${claimant}) ended`));
    }, 1_000);
    function done(err?: Error) {
      watcher.close();
      clearInterval(check);
      if (err) reject(err);
      else resolve();
    }
    watcher.on('change', (_, name) => {
      if (name === path.basename(note)) done();
    });
    watcher.on('error', done);
    // Written before the watcher was set up: no event will come for it.
    if (fs.existsSync(note)) done();
  });
}

/**
 * This worker's template: an empty database migrated by the site's own migrate(), made once by
 * the first file that needs it and found by name by the later ones. Built under another name and
 * renamed when complete, so a file that failed halfway leaves no half-migrated template behind.
 * Its pool is closed, and connections to it refused from then on: PostgreSQL copies a database
 * only while no session is connected to it.
 */
async function migratedTemplate(serverUrl: string): Promise<string> {
  const name = `template_${process.pid}_${threadId}`;
  const admin = `${serverUrl}/postgres`;
  const exists = await query(admin, 'SELECT 1 FROM pg_database WHERE datname = $1', [name]);
  if (exists.length > 0) return name;
  const building = `${name}_building`;
  await query(admin, `DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
  await query(admin, `CREATE DATABASE ${building} TEMPLATE template0`);
  const pool = new pg.Pool({ connectionString: `${serverUrl}/${building}`, max: 1 });
  pool.on('error', () => {}); // an idle connection dropped: migrate() rejects if it mattered
  try {
    await migrate(pool);
  } finally {
    await pool.end();
  }
  await query(admin, `ALTER DATABASE ${building} RENAME TO ${name}`);
  await query(admin, `ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS false`);
  return name;
}

/**
 * For the global teardown: ends the run's shared server and waits until it is gone, so the run
 * folder can be removed under no running server (which would still be writing into it). Its
 * watcher would end it too, but only once the run's main process is gone.
 */
export async function stopSharedServers(runFolder: string): Promise<void> {
  let written: Written;
  try {
    written = JSON.parse(fs.readFileSync(path.join(runFolder, NOTE_FILE), 'utf8')) as Written;
  } catch {
    return; // no file of the run needed PostgreSQL
  }
  if ('error' in written) return;
  const pid = postmasterPid(written.dataDir);
  if (pid === undefined || !isAlive(pid)) return;
  process.kill(pid, 'SIGQUIT'); // an immediate stop: the data goes anyway
  const deadline = Date.now() + 10_000;
  while (isAlive(pid) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50));
}

/** Is the server of this cluster folder still up? */
function isRunning(dataDir: string): boolean {
  const pid = postmasterPid(dataDir);
  return pid !== undefined && isAlive(pid);
}
