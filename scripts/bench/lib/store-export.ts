// The export half of npm run bench:store: BENCH_STORE_EXPORT_ROWS signups (default 1 000 000)
// written straight into a fresh store, in the columns and formats the store writes itself, then
// `node dist/server/waitlist.js export` run as an operator runs it, with the peak-RSS reporter
// preloaded. Its stdout comes to this process, which only counts CRLFs and bytes: an export of
// N signups is N + 1 lines (the header).
import { openSqliteStore } from '../../../server/store';
import { openPostgresStore } from '../../../server/store/postgres';
import { emailKey } from '../../../shared/form-checks';
import { runMeasuredCli, type MeasuredRun } from './measured-cli';

export const EXPORT_ROWS = Number(process.env.BENCH_STORE_EXPORT_ROWS ?? 1_000_000);

/** With a comma, so every line exercises the CSV quoting. */
const DESCRIPTION = 'Org mode on my phone, please';
/** Signup i is made one second after signup i - 1. */
const FIRST_SIGNUP = Date.parse('2026-01-01T00:00:00.000Z');
const exportEmail = (i: number) => `export-${i}@example.org`;

/** Seeds DATA_DIR/waitlist.db (migrated by openSqliteStore) in one transaction; returns seconds. */
export async function seedSqlite(dataDir: string, rows: number): Promise<number> {
  const started = process.hrtime.bigint();
  const store = openSqliteStore({ dataDir });
  try {
    // The columns of the store's own INSERT (server/store/signups.ts).
    const insert = store.db.prepare(
      'INSERT INTO signups (email, email_key, description, created_at) VALUES (?, ?, ?, ?)',
    );
    store.db.transaction(() => {
      for (let i = 0; i < rows; i++)
        insert.run(
          exportEmail(i),
          emailKey(exportEmail(i)),
          DESCRIPTION,
          new Date(FIRST_SIGNUP + i * 1000).toISOString(),
        );
    })();
  } finally {
    await store.close();
  }
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/**
 * Seeds a fresh database (migrated by openPostgresStore) with one INSERT … SELECT. created_at is
 * text in toISOString()'s format (migrations/001-initial.ts), checked on one row. VACUUM ANALYZE
 * afterwards: what autovacuum would have done to a table that grew over months, so the export
 * reads a settled table rather than one just bulk-loaded.
 */
export async function seedPostgres(databaseUrl: string, rows: number): Promise<number> {
  const started = process.hrtime.bigint();
  const store = await openPostgresStore({ databaseUrl, timeoutMs: 600_000 });
  try {
    await store.pool.query(
      `INSERT INTO signups (email, email_key, description, created_at)
       SELECT 'export-' || i || '@example.org', 'export-' || i || '@example.org', $1,
              to_char(timestamp '2026-01-01 00:00:00' + i * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
       FROM generate_series(0, $2::int - 1) AS i`,
      [DESCRIPTION, rows],
    );
    await store.pool.query('VACUUM ANALYZE signups');
    const last = rows - 1;
    const {
      rows: [row],
    } = await store.pool.query<{ email_key: string; created_at: string }>(
      'SELECT email_key, created_at FROM signups WHERE email = $1',
      [exportEmail(last)],
    );
    const expected = {
      email_key: emailKey(exportEmail(last)),
      created_at: new Date(FIRST_SIGNUP + last * 1000).toISOString(),
    };
    if (row?.email_key !== expected.email_key || row.created_at !== expected.created_at) {
      throw new Error(
        `seeded row ${JSON.stringify(row)} is not in the store's format ${JSON.stringify(expected)}`,
      );
    }
  } finally {
    await store.close();
  }
  return Number(process.hrtime.bigint() - started) / 1e9;
}

export interface ExportRun extends MeasuredRun {
  /** CRLF-terminated lines on stdout, and its size. */
  lines: number;
  bytes: number;
}

/** `export` with the built CLI, DATA_DIR or DATABASE_URL in `env`; wall time from spawn to exit. */
export async function runExport(env: NodeJS.ProcessEnv): Promise<ExportRun> {
  const { child, done } = runMeasuredCli(['export'], env);
  let lines = 0;
  let bytes = 0;
  let previousByte = -1; // a CRLF may be split between two chunks
  child.stdout.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) {
      if ((i === 0 ? previousByte : chunk[i - 1]) === 13) lines++;
    }
    previousByte = chunk[chunk.length - 1];
  });
  return { ...(await done), lines, bytes };
}
