// Stores as an older release left them, for the tests of what an upgrade opens: the schema of the
// one list's first versions (migrations/index.ts), or a SQLite file numbered as files were before
// that list (user_version 3 ahead, no application id; docs/decisions/0031-one-migration-list.md).
import Database from 'better-sqlite3';
import { LATEST_VERSION, migrationSql } from '../../server/store/migrations';
import { sqliteSteps } from '../../server/store/migrations/001-initial';
import { recordVersion } from '../../server/store/sqlite/database';

/** Brings an empty SQLite file to `version` of the one list, as this release's migrations do. */
export function sqliteAtVersion(db: Database.Database, version: number): void {
  for (let next = 1; next <= version; next++) {
    db.exec(migrationSql(next, 'sqlite'));
    recordVersion(db, next);
  }
}

/** The SQLite steps of the releases before the one list: its first four steps, then 2, 3, … */
export const OLD_SQLITE_STEPS: readonly string[] = [
  ...sqliteSteps,
  ...Array.from({ length: LATEST_VERSION - 1 }, (_, i) => migrationSql(i + 2, 'sqlite')),
];

/** Brings an empty SQLite file to user_version `old` as a release before the one list did. */
export function sqliteAtOldVersion(db: Database.Database, old: number): void {
  for (const [index, sql] of OLD_SQLITE_STEPS.slice(0, old).entries()) {
    db.exec(sql);
    db.pragma(`user_version = ${index + 1}`);
  }
}

const SQLITE_SCHEMA = `
SELECT type, name, tbl_name, sql
FROM sqlite_master
ORDER BY type, name`;

/**
 * What sqlite_master holds, whitespace aside: the list's SQL is laid out one clause a line, the
 * old files' was not, and SQLite keeps each statement's text as it was written.
 */
export function sqliteSchema(db: Database.Database) {
  const rows = db.prepare(SQLITE_SCHEMA).all() as { sql: string | null }[];
  return rows.map((row) => ({ ...row, sql: row.sql?.replace(/\s+/g, ' ') ?? null }));
}

/** postgres/migrate.ts's record of the versions applied. */
const SCHEMA_MIGRATIONS = `
CREATE TABLE schema_migrations (
  version INTEGER PRIMARY KEY,
  applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
)`;

/** The statements that bring an empty PostgreSQL database to `version`, as migrate() does. */
export function postgresAtVersion(version: number): string[] {
  const versions = Array.from({ length: version }, (_, i) => i + 1);
  const record = `
INSERT INTO schema_migrations (version)
VALUES ${versions.map((v) => `(${v})`).join(', ')}`;
  return [SCHEMA_MIGRATIONS, ...versions.map((v) => migrationSql(v, 'postgres')), record];
}

/** A file's header fields and schema, read without changing it. */
export function sqliteHeader(file: string) {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return {
      userVersion: db.pragma('user_version', { simple: true }),
      applicationId: db.pragma('application_id', { simple: true }),
      schema: sqliteSchema(db),
    };
  } finally {
    db.close();
  }
}
