// Keeping the store itself: its schema, a copy of it, and putting a copy back.
import path from 'node:path';
import type { Config } from '../config';
import type { Store } from '../store';
import { restoreDatabase, type RestoreResult } from '../store/sqlite/backup';
import { databaseFile } from '../store/sqlite/database';

export type MigrateResult = { kind: 'up-to-date'; engine: Store['engine'] };

type MigrateContext = { store: Pick<Store, 'ping' | 'engine'> };

/** Opening the store applied any migration this release has; the ping checks the result. */
export async function migrate({ store }: MigrateContext): Promise<MigrateResult> {
  await store.ping();
  return { kind: 'up-to-date', engine: store.engine };
}

export type BackupResult =
  /** Only an engine that keeps a file copies itself; PostgreSQL is backed up with pg_dump. */
  | { kind: 'not-a-file'; engine: Store['engine'] }
  | { kind: 'onto-the-database'; file: string }
  | { kind: 'copied'; file: string; signups: number; schemaVersion: number };

interface BackupContext {
  store: Pick<Store, 'backup' | 'engine' | 'signups' | 'schema'>;
  config: Pick<Config, 'dataDir'>;
}

export async function backup(context: BackupContext, file: string): Promise<BackupResult> {
  const { store, config } = context;
  if (!store.backup) return { kind: 'not-a-file', engine: store.engine };
  const database = path.resolve(databaseFile(config.dataDir));
  if (path.resolve(file) === database) return { kind: 'onto-the-database', file };
  await store.backup(file);
  const { found } = await store.schema();
  return { kind: 'copied', file, signups: await store.signups.count(), schemaVersion: found };
}

type RestoreContext = { config: Pick<Config, 'dataDir' | 'databaseUrl'> };
type Restored = RestoreResult | { kind: 'not-a-file' };

/** PostgreSQL is restored with pg_restore; SQLite by replacing its file, the site stopped. */
export function restore({ config }: RestoreContext, file: string): Restored {
  if (config.databaseUrl) return { kind: 'not-a-file' };
  return restoreDatabase(config.dataDir, file);
}
