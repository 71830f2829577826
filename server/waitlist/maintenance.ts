// Keeping the store itself: its schema, and a copy of it.
import type { Store } from '../store';

export type MigrateResult = { kind: 'up-to-date'; engine: Store['engine'] };

/** Opening the store applied any migration this release has; the ping checks the result. */
export async function migrate({ store }: { store: Pick<Store, 'ping' | 'engine'> }): Promise<MigrateResult> {
  await store.ping();
  return { kind: 'up-to-date', engine: store.engine };
}

export type BackupResult =
  /** Only an engine that keeps a file copies itself; PostgreSQL is backed up with pg_dump. */
  { kind: 'not-a-file'; engine: Store['engine'] } | { kind: 'copied'; file: string; signups: number };

export async function backup({ store }: { store: Pick<Store, 'backup' | 'engine' | 'signups'> }, file: string): Promise<BackupResult> {
  if (!store.backup) return { kind: 'not-a-file', engine: store.engine };
  await store.backup(file);
  return { kind: 'copied', file, signups: await store.signups.count() };
}
