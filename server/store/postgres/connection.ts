// The connection pool of the PostgreSQL store, and the one rule every call keeps: a call answers
// within timeoutMs (DATABASE_TIMEOUT_MS; CLIENT_MARGIN_MS more from a silent server), with its
// result or with StoreUnavailableError when the database is down, unreachable or too slow, so a
// handler answers 503 with Retry-After and never hangs. The pool heals by itself: a connection that
// broke is thrown away, and the next call opens a new one once PostgreSQL is back.
import pg from 'pg';
import Cursor from 'pg-cursor';
import { StoreUnavailableError } from '../errors';
import type { Queryable, Sql } from '../sql';

/**
 * BIGINT (ids, epoch ms, COUNT(*)) as a JS number: every value the store keeps is far below 2^53.
 * JSON as the text it was stored as, which is what SQLite gives back, so the rules read both alike.
 */
const AS_TEXT_PARSED: ReadonlyMap<number, (text: string) => unknown> = new Map<
  number,
  (text: string) => unknown
>([
  [pg.types.builtins.INT8, Number],
  [pg.types.builtins.JSON, String],
]);

export const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary'): unknown =>
    (format !== 'binary' && AS_TEXT_PARSED.get(oid)) ||
    (pg.types.getTypeParser(oid, format) as unknown)) as pg.CustomTypesConfig['getTypeParser'],
};

// Node's socket errors for a server that is not there (down, unreachable, or its name unknown).
const NETWORK_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNABORTED',
]);
// SQLSTATEs (https://www.postgresql.org/docs/current/errcodes-appendix.html) that mean "not now":
// admin_shutdown, crash_shutdown, cannot_connect_now, query_canceled (statement_timeout),
// lock_not_available, serialization_failure, deadlock_detected.
// Also 25006 (read-only: a replica promoted mid-failover answers writes so) and 57P04 (the
// database was dropped or is being recreated): the operator's problem, not the visitor's.
const TRANSIENT_STATES = new Set([
  '57P01',
  '57P02',
  '57P03',
  '57P04',
  '57014',
  '55P03',
  '40001',
  '40P01',
  '25006',
]);
// Class 08 connection exceptions; class 53 insufficient resources (too many connections, disk
// full).
const TRANSIENT_CLASSES = new Set(['08', '53']);
// What pg and pg-pool throw themselves, with no code: a dropped connection, the client-side
// query_timeout, the pool's connectionTimeoutMillis, a client that broke while checked out.
const TRANSIENT_MESSAGES = new RegExp(
  [
    'Connection terminated',
    'Query read timeout',
    'timeout exceeded when trying to connect',
    'not queryable',
    'store deadline',
  ].join('|'),
);

export function isUnavailable(err: unknown): boolean {
  if (err instanceof StoreUnavailableError) return true;
  // Duck-typed, not `instanceof Error`: socket errors come from Node's own realm, which is not
  // the realm of the code that checks them under Jest's VM contexts.
  if (typeof err !== 'object' || err === null) return false;
  const { code, message, errors } = err as { code?: unknown; message?: unknown; errors?: unknown };
  if (
    typeof code === 'string' &&
    (NETWORK_ERRORS.has(code) ||
      TRANSIENT_STATES.has(code) ||
      TRANSIENT_CLASSES.has(code.slice(0, 2)))
  )
    return true;
  // AggregateError: a host name with several addresses, every one refused.
  if (Array.isArray(errors) && errors.some(isUnavailable)) return true;
  return typeof message === 'string' && TRANSIENT_MESSAGES.test(message);
}

/**
 * Unavailability becomes StoreUnavailableError (a 503); anything else is a fault and stays as it
 * is.
 */
export function asStoreError(err: unknown): unknown {
  if (err instanceof StoreUnavailableError) return err;
  return isUnavailable(err) ? new StoreUnavailableError(err) : err;
}

export type Query = <R extends pg.QueryResultRow = pg.QueryResultRow>(
  text: string,
  values?: unknown[],
) => Promise<pg.QueryResult<R>>;

/**
 * pg's per-query client-side timeout (Client#query reads `query_timeout` from the query's config,
 * over the pool's); @types/pg does not declare it.
 */
export function withTimeout(config: pg.QueryConfig, timeoutMs: number): pg.QueryConfig {
  return Object.assign(config, { query_timeout: timeoutMs });
}

export interface Connection {
  pool: pg.Pool;
  timeoutMs: number;
  /** One statement. */
  query: Query;
  /** `work` inside BEGIN … COMMIT on one connection, rolled back when it throws. */
  transaction<T>(work: (query: Query) => Promise<T>): Promise<T>;
  /** A connection of its own for a long read (export), released by the caller. */
  connect(): Promise<pg.PoolClient>;
}

/**
 * How much later than the server the client stops waiting for a statement. The server's
 * statement_timeout cancels the statement and undoes it. A client that gave up first would leave it
 * running: a signup's single INSERT waiting on a lock then committed after its caller had been told
 * the store was unavailable (answered 503, stored anyway; the store test with a locked table caught
 * it under a loaded suite). The client's budget starts before the pool's connect and the server's
 * at the statement, so without a margin the client always came first; with it, the server does
 * unless the connect alone took longer, and such a call runs its statement as a transaction of one
 * (`query` below). The client's timer stays, as the backstop for a server that does not answer.
 */
const CLIENT_MARGIN_MS = 250;

export function connectPool(databaseUrl: string, timeoutMs: number, poolSize = 10): Connection {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: poolSize,
    types,
    // Opening a connection, or waiting for a free one from a busy pool.
    connectionTimeoutMillis: timeoutMs,
    // The server gives up on a statement (a lock wait included) as the client does (per query,
    // below). No pool-wide query_timeout: pg would apply it to an export's cursor as a whole.
    statement_timeout: timeoutMs,
    // A server that vanished without closing its sockets is noticed by the kernel.
    keepAlive: true,
  });
  // An idle connection dropped (PostgreSQL restarted, a proxy timed it out): pg-pool removes it
  // and emits 'error', which with no listener would end the process. The next call opens a new one.
  pool.on('error', () => {});
  // The same drop while a connection is checked out between two statements: pg emits 'error' on
  // the client; the next statement on it fails as unavailable, and it is thrown away on release.
  pool.on('connect', (client) => client.on('error', () => {}));

  /**
   * Each statement gets what remains of the call's budget, so a call never runs past timeoutMs
   * (and CLIENT_MARGIN_MS when the server is silent). `work` learns how long the pool made it wait.
   */
  async function withClient<T>(work: (query: Query, waitedMs: number) => Promise<T>): Promise<T> {
    const started = Date.now();
    const deadline = started + timeoutMs;
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (err) {
      throw asStoreError(err);
    }
    const waitedMs = Date.now() - started;
    let broken = false;
    const query: Query = (text, values) => {
      const left = deadline - Date.now();
      if (left <= 0) return Promise.reject(new Error(`store deadline of ${timeoutMs} ms passed`));
      return client.query(withTimeout({ text, values }, left + CLIENT_MARGIN_MS));
    };
    try {
      return await work(query, waitedMs);
    } catch (err) {
      // A connection that timed out may still be running the statement: never hand it out again.
      broken = isUnavailable(err);
      throw asStoreError(err);
    } finally {
      client.release(broken);
    }
  }

  /** `work` inside BEGIN … COMMIT, rolled back when it throws. */
  async function inTransaction<T>(query: Query, work: (query: Query) => Promise<T>): Promise<T> {
    await query('BEGIN');
    let result;
    try {
      result = await work(query);
    } catch (err) {
      // A failed ROLLBACK means a broken connection: withClient destroys it as such.
      await query('ROLLBACK').catch((rollbackError) => {
        throw isUnavailable(err) ? err : rollbackError;
      });
      throw err;
    }
    await query('COMMIT');
    return result;
  }

  return {
    pool,
    timeoutMs,
    query: (text, values) =>
      withClient((query, waitedMs) => {
        if (waitedMs < CLIENT_MARGIN_MS) return query(text, values);
        // The wait for a connection ate the margin, so the server's statement_timeout (timeoutMs
        // from the statement) would outlast the client's patience: an autocommit statement given
        // up on could still commit. As a transaction of one it cannot (a connection given up on is
        // thrown away before COMMIT), and the server's timeout comes down to the call's deadline
        // (SET LOCAL, gone with the transaction), so the server still cancels first.
        const left = Math.max(1, timeoutMs - waitedMs);
        return inTransaction(query, async (inner) => {
          await inner("SELECT set_config('statement_timeout', $1, true)", [String(left)]);
          return inner(text, values);
        });
      }),
    transaction: (work) => withClient((query) => inTransaction(query, work)),
    async connect() {
      try {
        return await pool.connect();
      } catch (err) {
        throw asStoreError(err);
      }
    },
  };
}

/** Each step of a cursor within the store's timeout, like any other call. */
function inTime<T>(step: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`store deadline of ${timeoutMs} ms passed`)),
      timeoutMs,
    );
  });
  return Promise.race([step, timeout]).finally(() => clearTimeout(timer));
}

/**
 * A cursor on a connection of its own, read a batch at a time as the consumer asks for rows. The
 * finally block runs when the consumer stops early too (break, or an error in a pipeline), so the
 * connection always goes back. The server's statement_timeout would count from the first batch
 * to the last and cancel a long export (a slow pipe, millions of rows): it is lifted on this
 * connection for the cursor, while each batch still has to arrive within the timeout.
 */
async function* streamRows<R>(
  db: Connection,
  text: string,
  values: readonly unknown[],
  batch: number,
): AsyncIterable<R> {
  const client = await db.connect();
  const step = <T>(promise: Promise<T>) => inTime(promise, db.timeoutMs);
  await step(client.query('SET statement_timeout = 0'));
  const cursor = client.query(new Cursor<R>(text, values as unknown[], { types }));
  let broken = false;
  try {
    for (;;) {
      let rows: R[];
      try {
        rows = await step(cursor.read(batch));
      } catch (err) {
        broken = true;
        throw asStoreError(err);
      }
      if (rows.length === 0) return;
      yield* rows;
    }
  } finally {
    if (!broken) await step(cursor.close()).catch(() => (broken = true));
    if (!broken) await step(client.query('RESET statement_timeout')).catch(() => (broken = true));
    client.release(broken);
  }
}

/** The store's rules speak to PostgreSQL through this (../sql.ts). */
export function postgresSql(db: Connection): Sql {
  const asQueryable = (query: Query): Queryable => ({
    async query<R>(text: string, values?: readonly unknown[]) {
      const result = await query(text, values as unknown[] | undefined);
      return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
    },
  });
  return {
    engine: 'postgres',
    lockRows: ' FOR UPDATE',
    skipLocked: ' FOR UPDATE SKIP LOCKED',
    ...asQueryable(db.query),
    transaction: (work) => db.transaction((query) => work(asQueryable(query))),
    stream: (text, values, batch) => streamRows(db, text, values, batch),
    isUniqueViolation: (err, index) =>
      (err as { code?: string }).code === '23505' &&
      (err as { constraint?: string }).constraint === index,
  };
}
