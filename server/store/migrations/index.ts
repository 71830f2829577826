// The schema's one list of versions, which both engines apply in order: SQLite records how far a
// file has come in PRAGMA user_version (sqlite/database.ts), PostgreSQL in schema_migrations
// (postgres/migrate.ts). A version is its place in the list, the number its file's name starts
// with, the same on both engines; `waitlist backup`, the CLI's refusals and /readyz's check speak
// of it. How stores from before the list map onto it: docs/decisions/0031-one-migration-list.md.
//
// A new version is a new file NNN-what-it-does.ts exporting `sql` (one text, or one per engine
// where they differ) and one line at the end of the list. A released version is never edited: a
// store that has it applied would never see the change. SQL lives in .ts modules so it ships
// inside the esbuild bundle, with no file to find at run time.
import { sql as initial } from './001-initial';
import { sql as addresses } from './002-addresses';
import { sql as consoleSchema } from './003-console';
import { sql as consoleEvidence } from './004-console-evidence';
import { sql as auditChain } from './005-audit-chain';
import { sql as deviceCookies } from './006-device-cookies';
import { sql as leaveRequests } from './007-leave-requests';
import { sql as welcomeMail } from './008-welcome-mail';
import { sql as webhooks } from './009-webhooks';
import { sql as signupEvents } from './010-signup-events';
import { sql as botGuard } from './011-bot-guard';
import { sql as webhookNames } from './012-webhook-names';
import { sql as signupLanguage } from './013-signup-language';
import { sql as suppressions } from './014-suppressions';
import { sql as signupSources } from './015-signup-sources';
import { sql as dataRequests } from './016-data-requests';
import { sql as importedUnconfirmed } from './017-imported-unconfirmed';
import { sql as bounces } from './018-bounces';

export type Engine = 'sqlite' | 'postgres';

/** A version's SQL: one text both engines take, or one for each. */
export type Migration = string | Readonly<Record<Engine, string>>;

/** Version n is MIGRATIONS[n - 1]. */
export const MIGRATIONS: readonly Migration[] = [
  initial,
  addresses,
  consoleSchema,
  consoleEvidence,
  auditChain,
  deviceCookies,
  leaveRequests,
  welcomeMail,
  webhooks,
  signupEvents,
  botGuard,
  webhookNames,
  signupLanguage,
  suppressions,
  signupSources,
  dataRequests,
  importedUnconfirmed,
  bounces,
];

/** The version this release brings a store to. */
export const LATEST_VERSION = MIGRATIONS.length;

/** The SQL `engine` runs to reach `version` from the one before. */
export function migrationSql(version: number, engine: Engine): string {
  const migration = MIGRATIONS[version - 1];
  return typeof migration === 'string' ? migration : migration[engine];
}
