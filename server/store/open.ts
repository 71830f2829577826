// Opening the store the settings name. DATABASE_URL set: PostgreSQL, migrated on open; a server
// starting beside its database (a compose file, a pod) waits for it, retrying for
// DATABASE_CONNECT_SECONDS, then gives up with a message that names DATABASE_URL (never its
// password). Otherwise: SQLite under DATA_DIR.
import { withoutCredentials, type Config } from '../config';
import type { Logger } from '../logger';
import { openStore } from './index';
import { leaseFor } from './leases';
import { openPostgresStore } from './postgres';
import { StoreUnavailableError, type Store } from './types';

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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `waitSeconds` overrides DATABASE_CONNECT_SECONDS (the CLI does not wait). */
export async function openConfiguredStore(config: StoreSettings, logger?: Logger, waitSeconds = config.databaseConnectSeconds): Promise<Store> {
  const limits = {
    outboxMaxItems: config.outboxMaxItems,
    mailMaxItems: config.mailMaxItems,
    maxAgeMs: config.queueMaxAgeMs,
    outboxLeaseMs: leaseFor(config.backendTimeoutMs),
    mailLeaseMs: leaseFor(config.smtpTimeoutMs),
  };
  if (!config.databaseUrl) return openStore({ dataDir: config.dataDir, ...limits });
  const where = withoutCredentials(config.databaseUrl);
  const deadline = Date.now() + waitSeconds * 1000;
  for (let attempt = 1; ; attempt++) {
    try {
      return await openPostgresStore({ databaseUrl: config.databaseUrl, timeoutMs: config.databaseTimeoutMs, limits });
    } catch (err) {
      if (!(err instanceof StoreUnavailableError)) {
        // A wrong password, a missing database, a refused TLS setup, a schema too new: say where.
        const code = (err as { code?: string }).code;
        throw new DatabaseUnreachableError(`PostgreSQL at ${where} (DATABASE_URL): ${(err as Error).message}${code ? ` (${code})` : ''}`);
      }
      if (Date.now() >= deadline) {
        const cause = (err.cause as Error | undefined)?.message;
        throw new DatabaseUnreachableError(
          `PostgreSQL at ${where} (DATABASE_URL) did not answer within ${waitSeconds} s${cause ? ` (${cause})` : ''}; is it running and reachable?`,
        );
      }
      logger?.warn({ database: where, attempt }, 'waiting for PostgreSQL');
      // Never past the deadline: the operator's DATABASE_CONNECT_SECONDS is what they get.
      await sleep(Math.max(0, Math.min(5_000, 500 * attempt, deadline - Date.now())));
    }
  }
}
