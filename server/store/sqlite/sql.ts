// The store's SQL on one better-sqlite3 connection. Statements are prepared once per text and
// kept; `$1`-style parameters become SQLite's `?` in the order they appear (better-sqlite3 binds
// numbered `?NNN` parameters by name, not by position).
//
// better-sqlite3 runs each statement synchronously, but a transaction of the shared rules awaits
// between its statements, and another request's statement could run in that gap, inside the
// open transaction. So one transaction runs at a time, and a statement outside one waits for the
// open one to end: SQLite's single writer, kept in this process too.
import Database from 'better-sqlite3';
import type { Queryable, Rows, Sql } from '../sql';

interface Prepared {
  statement: Database.Statement;
  /** For each `?`, which `$n` it stands for (0-based). */
  order: number[];
}

function prepare(db: Database.Database, text: string): Prepared {
  const order: number[] = [];
  const converted = text.replace(/\$(\d+)/g, (_, n: string) => {
    order.push(Number(n) - 1);
    return '?';
  });
  return { statement: db.prepare(converted), order };
}

export function sqliteSql(db: Database.Database): Sql {
  const prepared = new Map<string, Prepared>();

  function run<R>(text: string, values: readonly unknown[] = []): Rows<R> {
    let entry = prepared.get(text);
    if (!entry) {
      entry = prepare(db, text);
      prepared.set(text, entry);
    }
    const params = entry.order.map((i) => values[i]);
    if (entry.statement.reader) {
      // A SELECT, or a write with RETURNING: as in PostgreSQL, the count is of the rows it gave.
      const rows = entry.statement.all(...params) as R[];
      return { rows, rowCount: rows.length };
    }
    const result = entry.statement.run(...params);
    return { rows: [], rowCount: result.changes };
  }

  // One transaction at a time, in the order they asked. The check and the claim must happen in
  // one synchronous step: a flag checked in an async function and set after an await let two
  // waiters through together when three or more transactions met (the second's BEGIN then failed
  // with "cannot start a transaction within a transaction").
  /** Transactions in line: each waits for the one before it to end. */
  let line: Promise<void> = Promise.resolve();
  /** True from a transaction's BEGIN to its end; a statement outside it waits for `ended`. */
  let active = false;
  let ended: Promise<void> = Promise.resolve();

  const inTransaction: Queryable = {
    async query<R>(text: string, values?: readonly unknown[]) {
      return run<R>(text, values);
    },
  };

  return {
    engine: 'sqlite',
    lockRows: '',
    skipLocked: '',
    async query<R>(text: string, values?: readonly unknown[]) {
      // Checked again after every wait, and run in the same synchronous step as the last check.
      while (active) await ended;
      return run<R>(text, values);
    },
    // A connection of its own, read-only: in WAL mode it reads one snapshot while the site's
    // connection goes on writing (an iterator on the writing connection would lock it out).
    async *stream<R>(text: string, values: readonly unknown[]) {
      const reader = new Database(db.name, { readonly: true, fileMustExist: true });
      try {
        reader.pragma('busy_timeout = 5000');
        const { statement, order } = prepare(reader, text);
        for (const row of statement.iterate(...order.map((i) => values[i]))) yield row as R;
      } finally {
        reader.close();
      }
    },
    async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
      const before = line;
      let release!: () => void;
      line = new Promise<void>((resolve) => (release = resolve));
      await before;
      let end!: () => void;
      ended = new Promise<void>((resolve) => (end = resolve));
      active = true;
      try {
        // IMMEDIATE: the write lock is taken at the start, so a CLI writing the same file at the
        // same moment waits (busy_timeout) instead of failing halfway.
        db.exec('BEGIN IMMEDIATE');
        try {
          const result = await work(inTransaction);
          db.exec('COMMIT');
          return result;
        } catch (err) {
          if (db.inTransaction) db.exec('ROLLBACK');
          throw err;
        }
      } finally {
        active = false;
        end();
        release();
      }
    },
    // SQLite names the columns, not the index; the statements that can meet a unique index
    // touch one each, and a write transaction here never races another anyway.
    isUniqueViolation(err) {
      return (err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE';
    },
  };
}
