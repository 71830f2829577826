// The sites npm run bench:store measures (store.ts, store-confirm.ts): the built production server
// started on the settings of a case, stopped when the case is done or the bench ends, and the
// store they wrote read back afterwards.
import { openSqliteStore } from '../../../server/store';
import { openPostgresStore } from '../../../server/store/postgres';
import type { Store } from '../../../server/store/types';
import { startBuiltServer, type BuiltServer } from '../../lib/launch/server';
import { ROOT } from '../../lib/root';
import { cpuSeconds } from './cpu';

export type Site = BuiltServer;

export const SITE_ENV: NodeJS.ProcessEnv = {
  BACKEND_URL: '', // empty is unset: the site answers the API from its own store
  DATABASE_URL: '', // SQLite unless a case names a database
  SMTP_URL: '',
  SIGNUP_RATE_LIMIT: '0', // one load generator stands for thousands of visitors
  // The default, set so a shell's LOG_LEVEL cannot change it: the access-log line and the
  // "signup stored" line of every request are part of what a signup costs in production.
  LOG_LEVEL: 'info',
};

/** Run newest first when the bench ends, whether it passed, failed or was interrupted. */
export const cleanups: (() => unknown)[] = [];
export async function cleanUp(): Promise<void> {
  for (let cleanup = cleanups.pop(); cleanup; cleanup = cleanups.pop()) {
    try {
      await cleanup();
    } catch (err) {
      console.error(err);
    }
  }
}

/**
 * `count` sites on the same settings, stopped (their DATA_DIR and log removed) once `work` is done.
 */
export async function withSites<T>(
  count: number,
  env: NodeJS.ProcessEnv,
  work: (sites: Site[]) => Promise<T>,
  root = ROOT,
): Promise<T> {
  const sites: Site[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const site = await startBuiltServer({
        env: { ...SITE_ENV, ...env },
        root,
        logFile: 'site.log',
      });
      cleanups.push(site.stop); // stopping twice is harmless
      sites.push(site);
    }
    return await work(sites);
  } finally {
    await Promise.all(sites.map((site) => site.stop()));
  }
}

export const sitesCpu = (sites: { child: { pid?: number } }[]) => () =>
  sites.reduce<number | undefined>((sum, site) => {
    const seconds = cpuSeconds(site.child.pid);
    return sum === undefined || seconds === undefined ? undefined : sum + seconds;
  }, 0);

/**
 * Where a case's sites store: a SQLite file under one site's DATA_DIR, or a PostgreSQL database.
 */
export type StoreAt = { dataDir: string } | { databaseUrl: string };

/** The store at `at`, opened beside the running sites for `read`, then closed. */
export async function readStore<T>(at: StoreAt, read: (store: Store) => Promise<T>): Promise<T> {
  const store =
    'dataDir' in at
      ? openSqliteStore({ dataDir: at.dataDir })
      : await openPostgresStore({ databaseUrl: at.databaseUrl, timeoutMs: 60_000 });
  try {
    return await read(store);
  } finally {
    await store.close();
  }
}

export const storedEmails = (at: StoreAt) =>
  readStore(at, async (store) => (await store.signups.list()).map((row) => row.email));
