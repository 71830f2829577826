// Opening the store the settings name. DATABASE_URL set: PostgreSQL, migrated on open; a server
// starting beside its database (a compose file, a pod) waits for it, retrying for
// DATABASE_CONNECT_SECONDS, then gives up with a message that names DATABASE_URL (never its
// password). Otherwise: SQLite under DATA_DIR. Only the site and commands that write migrate:
// commands that read or copy open the store as it is, and refuse a schema they cannot read.
import fs from 'node:fs';
import { withoutCredentials, type Config } from '../config';
import type { Logger } from '../logger';
import { openSqliteStore } from './index';
import { StoreUnavailableError } from './errors';
import { leaseFor } from './leases';
import { LATEST_VERSION } from './migrations';
import { openPostgresStore } from './postgres';
import { databaseFile } from './sqlite/database';
import type { Store } from './types';

type StoreSettings = Pick<
  Config,
  | 'dataDir'
  | 'databaseUrl'
  | 'databaseConnectSeconds'
  | 'databaseTimeoutMs'
  | 'backendTimeoutMs'
  | 'smtpTimeoutMs'
  | 'outboxMaxItems'
  | 'mailMaxItems'
  | 'queueMaxAgeMs'
>;

export class DatabaseUnreachableError extends Error {}

/**
 * What opening does with the schema. 'migrate': brings it to this release's version, as the site
 * does at start-up. 'current': leaves it, and it must be at this release's version (a command
 * that reads). 'known': leaves it, at this release's version or an older one (backup copies it).
 */
export type SchemaPolicy = 'migrate' | 'current' | 'known';

const schemaState = (found: number) =>
  found === 0 ? 'holds no waitlist yet: schema version 0' : `is at schema version ${found}`;

/** The store's schema is one the caller cannot use as it is (found 0: there is no store yet). */
export class SchemaVersionError extends Error {
  constructor(
    readonly where: string,
    readonly found: number,
    readonly release: number,
  ) {
    super(`${where} ${schemaState(found)}; this release's is ${release}`);
    this.name = 'SchemaVersionError';
  }
}

export interface OpenOptions {
  /** Overrides DATABASE_CONNECT_SECONDS (the CLI does not wait). */
  waitSeconds?: number;
  /** 'migrate' by default. */
  schema?: SchemaPolicy;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function openStore(
  config: StoreSettings,
  logger?: Logger,
  options: OpenOptions = {},
): Promise<Store> {
  const { schema = 'migrate' } = options;
  if (schema === 'migrate') return openAt(config, logger, options);
  const where = config.databaseUrl
    ? `PostgreSQL at ${withoutCredentials(config.databaseUrl)} (DATABASE_URL)`
    : databaseFile(config.dataDir);
  // Read as it is: a missing file is not created, since that would hide a mistyped DATA_DIR.
  if (!config.databaseUrl && !fs.existsSync(where))
    throw new SchemaVersionError(where, 0, LATEST_VERSION);
  const store = await openAt(config, logger, options);
  const { found, release } = await store.schema();
  if (found === release || (schema === 'known' && found > 0 && found < release)) return store;
  await store.close();
  throw new SchemaVersionError(where, found, release);
}

async function openAt(
  config: StoreSettings,
  logger: Logger | undefined,
  { waitSeconds = config.databaseConnectSeconds, schema = 'migrate' }: OpenOptions,
): Promise<Store> {
  const migrate = schema === 'migrate';
  const limits = {
    outboxMaxItems: config.outboxMaxItems,
    mailMaxItems: config.mailMaxItems,
    maxAgeMs: config.queueMaxAgeMs,
    outboxLeaseMs: leaseFor(config.backendTimeoutMs),
    mailLeaseMs: leaseFor(config.smtpTimeoutMs),
  };
  if (!config.databaseUrl) return openSqliteStore({ dataDir: config.dataDir, migrate, ...limits });
  const where = withoutCredentials(config.databaseUrl);
  const deadline = Date.now() + waitSeconds * 1000;
  for (let attempt = 1; ; attempt++) {
    try {
      return await openPostgresStore({
        databaseUrl: config.databaseUrl,
        timeoutMs: config.databaseTimeoutMs,
        limits,
        migrate,
      });
    } catch (err) {
      if (!(err instanceof StoreUnavailableError)) {
        // A wrong password, a missing database, a refused TLS setup, a schema too new: say where.
        const code = (err as { code?: string }).code;
        const coded = code ? ` (${code})` : '';
        throw new DatabaseUnreachableError(
          `PostgreSQL at ${where} (DATABASE_URL): ${(err as Error).message}${coded}`,
        );
      }
      if (Date.now() >= deadline) {
        const cause = (err.cause as Error | undefined)?.message;
        const why = cause ? ` (${cause})` : '';
        throw new DatabaseUnreachableError(
          `PostgreSQL at ${where} (DATABASE_URL) did not answer within ${waitSeconds} s${why}; ` +
            'is it running and reachable?',
        );
      }
      logger?.warn({ database: where, attempt }, 'waiting for PostgreSQL');
      // Never past the deadline: the operator's DATABASE_CONNECT_SECONDS is what they get.
      await sleep(Math.max(0, Math.min(5_000, 500 * attempt, deadline - Date.now())));
    }
  }
}
