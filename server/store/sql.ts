// What the store's rules need of a database, and all they may know of which one it is. The rules
// (signups.ts, subscriptions.ts, outbox.ts, mail-queue.ts, erasure.ts) are written once against
// this interface, in the SQL both engines speak: `$1`-style parameters, RETURNING, ON CONFLICT,
// COUNT(*) FILTER, row values. Each engine (sqlite/, postgres/) says only how a statement runs and
// the few clauses where the engines truly differ: row locks and SKIP LOCKED, which PostgreSQL needs
// for several replicas and SQLite's single writer makes unnecessary. Decision 0014 says why this
// and not a query builder.

export interface Rows<R> {
  rows: R[];
  /** Rows written by an INSERT, UPDATE or DELETE. */
  rowCount: number;
}

export interface Queryable {
  query<R = Record<string, unknown>>(text: string, values?: readonly unknown[]): Promise<Rows<R>>;
}

export interface Sql extends Queryable {
  readonly engine: 'sqlite' | 'postgres';
  /**
   * `work` in one transaction, committed when it resolves and rolled back when it throws. Its
   * statements run on `tx` only; nothing else runs inside it.
   */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * The rows of one long read, `batch` at a time, as the consumer asks for them (an export of a
   * million signups holds one batch), on a connection of the read's own so the rest of the store
   * goes on meanwhile. Stopping early (break, an error downstream) frees that connection.
   */
  stream<R>(text: string, values: readonly unknown[], batch: number): AsyncIterable<R>;
  /**
   * Appended to a SELECT inside a transaction: its rows stay locked until the transaction ends, so
   * two replicas changing one signup take turns. Empty on SQLite, where a write transaction
   * already excludes every other.
   */
  readonly lockRows: string;
  /**
   * Appended to a queue's claim subquery: rows another replica's claim holds are passed over, not
   * waited for. Empty on SQLite (one statement, one writer).
   */
  readonly skipLocked: string;
  /** The error is the given unique index refusing a second row (a race another replica won). */
  isUniqueViolation(err: unknown, index: string): boolean;
}

/** The placeholders of a list of values, `$from, $from+1, …`: one for each of `values`. */
export const placeholders = (values: readonly unknown[], from = 1) =>
  values.map((_, i) => `$${i + from}`).join(', ');
