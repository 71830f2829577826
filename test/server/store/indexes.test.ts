// The console's table reads a million signups: what keeps it fast is that the state
// counts and the state filter read signups_state, an index on STATE itself (signups.ts). The index
// holds a copy of the rule's text, made when the migration ran; if STATE changes without a
// migration that rebuilds it, the planner quietly falls back to reading every row. These plans
// hold the two together, on both engines.
import { openSqliteStore } from '../../../server/store';
import { EXPIRED_UNCONFIRMED, STATE } from '../../../server/store/signups';
import { tempDataDir } from '../../support/config';
import { query } from '../../../scripts/lib/launch/postgres';
import { describeWithPostgres } from '../../support/postgres';
import { sharedPostgres, type SharedPostgres } from '../../support/shared-postgres';
import { openPostgresStore } from '../../../server/store/postgres';

const COUNT_BY_STATE = `SELECT ${STATE} AS state, COUNT(*) AS n FROM signups GROUP BY 1`;
const INVITED_NEWEST = `SELECT email FROM signups WHERE ${STATE} = 'invited' ORDER BY created_at DESC, id DESC LIMIT 50`;
const SEARCH = `SELECT email FROM signups WHERE email_key LIKE '%ann%' ORDER BY created_at DESC, id DESC LIMIT 50`;
// The expiry sweep's read (signups.ts, expiredUnconfirmed), which passes over imported rows still
// waiting for their first confirmation mail, and what `confirm --resend` reads (imports.ts).
const EXPIRED = `SELECT email FROM signups
  WHERE ${EXPIRED_UNCONFIRMED.replace(/\$1/g, "'2026-01-01'")} AND created_at <= '2026-01-01'
  ORDER BY created_at LIMIT 100`;
const AWAITING_RESEND = `SELECT email_key FROM signups
  WHERE imported_unconfirmed_at IS NOT NULL AND confirmed_at IS NULL AND undeliverable_at IS NULL
  ORDER BY imported_unconfirmed_at LIMIT 1000`;

describe('the SQLite store', () => {
  const plan = (sql: string) => {
    const store = openSqliteStore({ dataDir: tempDataDir() });
    try {
      return (store.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[])
        .map((row) => row.detail)
        .join(' | ');
    } finally {
      void store.close();
    }
  };

  it('counts signups by state from the state index', () => {
    expect(plan(COUNT_BY_STATE)).toMatch(/USING (COVERING )?INDEX signups_state\b/);
  });

  it('lists one state newest first from the state index, with no sort', () => {
    const detail = plan(INVITED_NEWEST);
    expect(detail).toMatch(/USING INDEX signups_state \(<expr>=\?\)/);
    expect(detail).not.toMatch(/TEMP B-TREE/);
  });

  it('searches addresses along the list order index, which holds the address', () => {
    expect(plan(SEARCH)).toMatch(/SCAN signups USING INDEX signups_created_at/);
  });

  it('sweeps expired addresses, and finds imported ones waiting for a mail, by their own indexes', () => {
    expect(plan(EXPIRED)).toMatch(
      /SEARCH signups USING INDEX signups_unconfirmed \(created_at<\?\)/,
    );
    expect(plan(AWAITING_RESEND)).toMatch(/USING INDEX signups_imported_unconfirmed/);
  });
});

describeWithPostgres('the PostgreSQL store', () => {
  let postgres: SharedPostgres;
  let databaseUrl: string;

  beforeAll(async () => {
    postgres = await sharedPostgres();
    databaseUrl = await postgres.createMigratedDatabase();
    const store = await openPostgresStore({ databaseUrl, timeoutMs: 5_000 });
    await store.close();
  });
  afterAll(() => postgres?.dropDatabases());

  /**
   * The plan with sequential scans priced out: an empty table would otherwise always be scanned.
   */
  async function plan(sql: string): Promise<string> {
    const rows = await query<{ 'QUERY PLAN': string }>(
      `${databaseUrl}?options=${encodeURIComponent('-c enable_seqscan=off')}`,
      `EXPLAIN ${sql}`,
    );
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  }

  it('has an index on the state expression that a state filter uses', async () => {
    expect(await plan(INVITED_NEWEST)).toMatch(/Index Scan Backward using signups_state/);
  });

  it('sweeps expired addresses, and finds imported ones waiting for a mail, by their own indexes', async () => {
    expect(await plan(EXPIRED)).toMatch(/Index Scan using signups_unconfirmed/);
    expect(await plan(AWAITING_RESEND)).toMatch(
      /Index Scan on signups_imported_unconfirmed|Index Scan using signups_imported_unconfirmed/,
    );
  });
});
