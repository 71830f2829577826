// The two store engines behind one opener, for every test or benchmark that must hold for both:
// the store contract (test/server/store/contract.test.ts), multi-replica tests, benchmarks. Each
// open() gives a fresh, empty store: SQLite in a temp folder of its own, PostgreSQL in a fresh
// database on the run's shared server (shared-postgres.ts), dropped again once closed. Both are
// copies of a database migrated once per worker: the migrations are what opening costs most.
import fs from 'node:fs';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { openSqliteStore, type SqliteStore } from '../../server/store';
import { openPostgresStore, type PostgresStore } from '../../server/store/postgres';
import { LATEST_VERSION } from '../../server/store/migrations';
import { databaseFile } from '../../server/store/sqlite/database';
import type { SignupRequest } from '../../shared/form-checks';
import type { QueueLimits } from '../../server/store/limits';
import type { OutgoingMail } from '../../server/store/mail-queue';
import type { Store } from '../../server/store/types';
import { TEST_TMP_ENV, tempDataDir } from './config';
import { query } from '../../scripts/lib/launch/postgres';
import { postgresAtVersion, sqliteAtVersion } from './older-schema';
import { whyNoPostgres } from './postgres';
import { sharedPostgres, type SharedPostgres } from './shared-postgres';

export interface OpenOptions {
  limits?: Partial<QueueLimits>;
  /** The store's clock: every time it records or compares comes from it. */
  now: () => number;
}

export interface StoreEngine {
  readonly name: 'sqlite' | 'postgres';
  /** Why this engine is skipped in this run (see whyNoPostgres). */
  readonly unavailable?: string;
  /** A fresh, empty store. */
  open(options: OpenOptions): Promise<Store>;
  /**
   * A store on a fresh database that the release before this one's last `behind` migrations made
   * and filled with `rows` (statements both engines take): what an upgrade opens and migrates.
   */
  openUpgraded(options: OpenOptions & { behind: number; rows: readonly string[] }): Promise<Store>;
  /** Closes the stores it opened that are still open, and drops their databases (afterEach). */
  closeStores(): Promise<void>;
  /** The same at the end of a file (afterAll). */
  close(): Promise<void>;
}

/** Remembers each store until it is closed, whoever closes it (a test may close one itself). */
function openStores() {
  const open = new Set<Store>();
  return {
    track(store: Store): Store {
      const close = store.close.bind(store);
      open.add(store);
      store.close = async () => {
        open.delete(store);
        await close();
      };
      return store;
    },
    async closeAll() {
      await Promise.all([...open].map((store) => store.close()));
    },
  };
}

function sqliteEngine(): StoreEngine {
  const stores = openStores();
  return {
    name: 'sqlite',
    async open({ limits = {}, now }) {
      const dataDir = tempDataDir();
      const template = migratedSqliteFile();
      if (template) fs.copyFileSync(template, databaseFile(dataDir));
      return stores.track(openSqliteStore({ dataDir, ...limits }, now));
    },
    async openUpgraded({ behind, rows, limits = {}, now }) {
      const dataDir = tempDataDir();
      const db = new Database(databaseFile(dataDir));
      sqliteAtVersion(db, LATEST_VERSION - behind);
      for (const row of rows) db.exec(row);
      db.close();
      return stores.track(openSqliteStore({ dataDir, ...limits }, now));
    },
    closeStores: () => stores.closeAll(),
    close: () => stores.closeAll(),
  };
}

/**
 * This process's migrated SQLite file, made once in the run folder and copied for each store;
 * none outside Jest (no run folder to leave it in): each store is then migrated on its own.
 * Closed in rollback-journal mode, so the one file is the whole database (no -wal beside it);
 * the store that opens a copy turns WAL on again, as it does for any file.
 */
function migratedSqliteFile(): string | undefined {
  const runFolder = process.env[TEST_TMP_ENV];
  if (!runFolder) return undefined;
  const folder = path.join(runFolder, `sqlite-template-${process.pid}-${threadId}`);
  if (fs.existsSync(folder)) return databaseFile(folder);
  // Made under another name and renamed when complete: never half a template under this one.
  const building = fs.mkdtempSync(`${folder}-building-`);
  const { db } = openSqliteStore({ dataDir: building });
  db.pragma('journal_mode = DELETE');
  db.close();
  fs.renameSync(building, folder);
  return databaseFile(folder);
}

/**
 * The PostgreSQL half is skipped in the quick run and on a developer's machine without the server
 * binaries (whyNoPostgres). In CI (process.env.CI set) the latter skips nothing: missing binaries
 * make every test of this engine fail with the reason, so CI can never pass with only the SQLite
 * half run.
 */
function postgresEngine(): StoreEngine {
  const skipped = whyNoPostgres();
  const stores = openStores();
  let server: Promise<SharedPostgres> | undefined;
  const sharedServer = () => {
    if (skipped) throw new Error(`The PostgreSQL store is not tested here: ${skipped}`);
    return (server ??= sharedPostgres());
  };
  return {
    name: 'postgres',
    unavailable: skipped,
    async open({ limits, now }) {
      const databaseUrl = await (await sharedServer()).createMigratedDatabase();
      return stores.track(
        await openPostgresStore({ databaseUrl, timeoutMs: 5_000, limits, now, poolSize: 4 }),
      );
    },
    async openUpgraded({ behind, rows, limits, now }) {
      const databaseUrl = await (await sharedServer()).createDatabase();
      // The schema and the versions table as that release's migrate() left them, then the rows.
      const older = postgresAtVersion(LATEST_VERSION - behind);
      await query(databaseUrl, [...older, ...rows].join(';\n'));
      return stores.track(
        await openPostgresStore({ databaseUrl, timeoutMs: 5_000, limits, now, poolSize: 4 }),
      );
    },
    closeStores,
    close: closeStores,
  };

  /** Closes the stores, then drops their databases: the shared server outlives the test. */
  async function closeStores() {
    await stores.closeAll();
    if (server) await (await server).dropDatabases();
  }
}

/** Both engines, SQLite first. Each test file gets its own list (Jest loads modules per file). */
export const ENGINES: readonly StoreEngine[] = [sqliteEngine(), postgresEngine()];

/**
 * A second store instance on `store`'s database: another worker (a replica, or the site beside a
 * CLI). The caller closes it.
 */
export async function besideStore(
  store: Store,
  now: () => number,
  limits: Partial<QueueLimits> = {},
): Promise<Store> {
  if (store.engine === 'sqlite')
    return openSqliteStore(
      { dataDir: path.dirname((store as SqliteStore).db.name), ...limits },
      now,
    );
  const { connectionString } = (store as PostgresStore).pool.options as {
    connectionString: string;
  };
  return openPostgresStore({
    databaseUrl: connectionString,
    timeoutMs: 5_000,
    limits,
    now,
    poolSize: 2,
  });
}

/** The rows a query (no parameters) gives, on either engine: what a test looks inside for. */
export async function selectRows<R = Record<string, unknown>>(
  store: Store,
  text: string,
): Promise<R[]> {
  if (store.engine === 'sqlite') return (store as SqliteStore).db.prepare(text).all() as R[];
  return (await (store as PostgresStore).pool.query(text)).rows as R[];
}

/** How many rows `table` holds, on either engine: what a test checks is left (or not) behind. */
export async function countRows(store: Store, table: string): Promise<number> {
  const [row] = await selectRows<{ n: number | string }>(
    store,
    `SELECT COUNT(*) AS n FROM ${table}`,
  );
  return Number(row.n);
}

/**
 * invite()'s compose for tests that only need an invitation to send: the key, one Message-ID per
 * address.
 */
export const composeInvitation = (to: string, key: string): OutgoingMail => ({
  from: 'OrgNote <invite@orgnote.example>',
  to,
  subject: 'Your OrgNote activation key',
  text: key,
  html: `<p>${key}</p>`,
  messageId: `<${to}@orgnote.example>`,
  date: new Date().toISOString(),
});

/** Puts `email` on the waitlist and invites it: the mail of the invitation, queued and claimed. */
export async function addInvited(store: Store, email: string) {
  await store.signups.add({ email, description: '' });
  const invitation = await store.subscriptions.invite(email, {
    again: false,
    compose: composeInvitation,
  });
  if (invitation.outcome !== 'invited') throw new Error(`not invited: ${invitation.outcome}`);
  return invitation.mail;
}

/** A signup for the outbox, as the site queues one the backend did not take. */
export const queuedSignup = (email: string, idempotencyKey = 'k-1'): SignupRequest => ({
  path: '/api/subscriptions',
  fields: [['email', email]],
  forwarded: {},
  idempotencyKey,
});

/**
 * Runs a store contract once per engine, each store closed after its test, in a describe block
 * titled `title` ($name: the engine's). An engine this run skips (see postgresEngine) is skipped
 * with the reason in the title.
 */
export function describeEachEngine(
  contract: (engine: StoreEngine) => void,
  title = 'the $name store',
): void {
  const run = (engine: StoreEngine) => {
    afterEach(() => engine.closeStores());
    afterAll(() => engine.close());
    contract(engine);
  };
  const available = ENGINES.filter((engine) => !engine.unavailable);
  const unavailable = ENGINES.filter((engine) => engine.unavailable);
  describe.each(available)(title, run);
  if (unavailable.length > 0)
    describe.skip.each(unavailable)(`${title} — SKIPPED: $unavailable`, run);
}
