// The upgrade and the rollback of docs/operating.md, on both engines, with the release before the
// operators' kit as the old build: that commit's files, built beside this checkout on its
// node_modules once and kept (oldBuild). Back up with the old build, start the new one (which
// migrates), sign up once more, then restore the backup and start the old build again: it has the
// signups made before the upgrade, and not the one made after.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import { releasePort, reservePort } from '../../../scripts/lib/launch/ports';
import { startBuiltServer, type BuiltServer } from '../../../scripts/lib/launch/server';
import { tempDataDir } from '../../support/config';
import { postSignup } from '../../support/http';
import { describeWithPostgres } from '../../support/postgres';
import { sharedPostgres, type SharedPostgres } from '../../support/shared-postgres';

const run = promisify(execFile);

/** The last commit before the operators' kit: the release an operator upgrades from. */
const OLD_COMMIT = '2e09991';
const NEW_ROOT = path.resolve(__dirname, '../../..');

const BEFORE = ['first@example.org', 'second@example.org'];
const AFTER = 'after-upgrade@example.org';

let oldRoot: string;

beforeAll(async () => {
  try {
    await run('git', ['cat-file', '-e', `${OLD_COMMIT}^{commit}`], { cwd: NEW_ROOT });
  } catch {
    const what = `commit ${OLD_COMMIT}, the old build of the upgrade test`;
    throw new Error(`${what}, is missing from this clone: fetch the full history`);
  }
  oldRoot = await oldBuild();
}, 180_000);

/**
 * The old release, built: node_modules/.cache/orgnote-upgrade/<commit>/, made on the first run and
 * reused after, as a build takes a minute. Built in a folder of its own and renamed into place, so
 * that the folder is there complete or not at all, whatever stopped a run half-way.
 */
async function oldBuild(): Promise<string> {
  const cache = path.join(NEW_ROOT, 'node_modules', '.cache', 'orgnote-upgrade');
  const root = path.join(cache, OLD_COMMIT);
  if (fs.existsSync(root)) return root;
  fs.mkdirSync(cache, { recursive: true });
  const building = fs.mkdtempSync(path.join(cache, `${OLD_COMMIT}-building-`));
  try {
    await run('sh', ['-c', `git archive ${OLD_COMMIT} | tar -x -C "${building}"`], {
      cwd: NEW_ROOT,
    });
    // Its build script reads React Router's files through its own node_modules. The link goes
    // after the build (a link back up would make a loop in node_modules): from where it lies, the
    // old code finds this checkout's dependencies (better-sqlite3 13, Node 24) all the same.
    const modules = path.join(building, 'node_modules');
    fs.symlinkSync(path.join(NEW_ROOT, 'node_modules'), modules);
    await run('npx', ['tsx', 'scripts/build.ts'], { cwd: building, timeout: 120_000 });
    fs.unlinkSync(modules);
    fs.renameSync(building, root);
  } catch (err) {
    fs.rmSync(building, { recursive: true, force: true });
    // Another run's build took the place first: as good as ours.
    if (fs.existsSync(root)) return root;
    throw err;
  }
  return root;
}

/** Sites still running when a test ends (it failed half-way): killed, so Jest can exit. */
const running = new Set<BuiltServer>();
afterEach(() => running.forEach((site) => site.child.kill('SIGKILL')));

type Env = Record<string, string>;

/** The production server of a build (dist/server/index.js), as `npm start` runs it. */
async function startSite(root: string, env: Env): Promise<BuiltServer> {
  const port = reservePort(30_000, 32_000);
  let site: BuiltServer;
  try {
    site = await startBuiltServer({
      root,
      env: { LOG_LEVEL: 'warn', SIGNUP_RATE_LIMIT: '0', ...env, PORT: String(port) },
      timeoutMs: 20_000,
    });
  } catch (err) {
    releasePort(port);
    throw new Error(`the build in ${root}: ${(err as Error).message}`);
  }
  running.add(site);
  void site.exited.then(() => {
    running.delete(site);
    releasePort(port);
  });
  return site;
}

async function stop(site: BuiltServer): Promise<void> {
  expect((await site.stop()).code).toBe(0);
}

async function signUp(site: BuiltServer, email: string): Promise<void> {
  const agent = new http.Agent();
  try {
    const body = `email=${encodeURIComponent(email)}`;
    expect(await postSignup(site.port, body, 'application/x-www-form-urlencoded', agent)).toBe(201);
  } finally {
    agent.destroy();
  }
}

/** A build's CLI (dist/server/waitlist.js), as `docker exec … waitlist` runs it. */
async function waitlist(root: string, env: Env, ...args: string[]): Promise<string> {
  const cli = path.join(root, 'dist/server/waitlist.js');
  const options = { cwd: root, env: { PATH: process.env.PATH, ...env } };
  const { stdout } = await run(process.execPath, [cli, ...args], options);
  return stdout;
}

/** The addresses a build's CLI exports, sorted. */
async function signupsSeenBy(root: string, env: Env): Promise<string[]> {
  const csv = await waitlist(root, env, 'export');
  // Quoted or not: a release from before every field was quoted is read too.
  return csv
    .split('\r\n')
    .slice(1, -1)
    .map((line) => line.split(',')[0].replace(/"/g, ''))
    .sort();
}

interface Engine {
  env: Env;
  /** Backs up the running old release's store, as the runbook does. */
  backUp(): Promise<void>;
  /** Puts the backup back, with the site stopped. */
  restore(): Promise<void>;
}

async function upgradeThenRollBack(engine: Engine): Promise<void> {
  const { env } = engine;
  const oldSite = await startSite(oldRoot, env);
  for (const email of BEFORE) await signUp(oldSite, email);
  await engine.backUp();
  await stop(oldSite);

  // The upgrade: the new build migrates at start-up, and has every signup.
  const newSite = await startSite(NEW_ROOT, env);
  expect(await signupsSeenBy(NEW_ROOT, env)).toEqual(BEFORE);
  await signUp(newSite, AFTER);
  expect(await signupsSeenBy(NEW_ROOT, env)).toEqual([AFTER, ...BEFORE].sort());
  await stop(newSite);

  // The rollback: the backup put back, then the old build.
  await engine.restore();
  const rolledBack = await startSite(oldRoot, env);
  try {
    expect(await signupsSeenBy(oldRoot, env)).toEqual(BEFORE);
  } finally {
    await stop(rolledBack);
  }
}

it('SQLite: backup by the old build, upgrade, waitlist restore, the old build again', async () => {
  const dataDir = tempDataDir();
  const env = { DATA_DIR: dataDir };
  const backupFile = path.join(dataDir, 'backups', 'before-upgrade.db');
  await upgradeThenRollBack({
    env,
    async backUp() {
      // As the runbook does: the old release's backup does not make the folder.
      fs.mkdirSync(path.dirname(backupFile));
      const out = await waitlist(oldRoot, env, 'backup', backupFile);
      expect(out).toBe(`Backed up ${BEFORE.length} signup(s) to ${backupFile}\n`);
    },
    async restore() {
      const out = await waitlist(NEW_ROOT, env, 'restore', backupFile);
      expect(out).toMatch(/^Restored 2 signup\(s\) \(schema version \d+\) from /);
    },
  });
  // What the rollback replaced is kept, with the signup made after the upgrade.
  expect(fs.existsSync(path.join(dataDir, 'waitlist.db.before-restore'))).toBe(true);
}, 90_000);

describeWithPostgres('the upgrade on PostgreSQL', () => {
  it('PostgreSQL: pg_dump -Fc, upgrade, pg_restore into a new database, the old build', async () => {
    const server: SharedPostgres = await sharedPostgres();
    try {
      const url = await server.createDatabase();
      const name = new URL(url).pathname.slice(1);
      const dump = path.join(tempDataDir(), 'before-upgrade.dump');
      const host = ['-h', '127.0.0.1', '-p', String(server.port), '-U', 'postgres'];
      await upgradeThenRollBack({
        env: { DATABASE_URL: url, DATA_DIR: tempDataDir() },
        async backUp() {
          await run('pg_dump', [...host, '-Fc', '-f', dump, name]);
        },
        async restore() {
          // Into an empty database: anything the new release added is gone with the old one.
          await run('dropdb', [...host, '--force', name]);
          await run('createdb', [...host, name]);
          await run('pg_restore', [...host, '--no-owner', '-d', name, dump]);
        },
      });
    } finally {
      await server.dropDatabases();
    }
  }, 90_000);
});
