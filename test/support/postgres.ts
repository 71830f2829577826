// PostgreSQL for the tests: the launcher's private server (scripts/lib/launch/postgres.ts) with its
// cluster in the run's temporary folder, and what a test run decides about it: the quick run
// starts none, and a describe block that needs one is skipped with the reason in its title.
import {
  postgresAvailable,
  startPostgres as startPrivatePostgres,
  type PostgresServer,
  type StartOptions,
} from '../../scripts/lib/launch/postgres';
import { TEST_TMP_ENV } from './config';

/**
 * Why this run skips what needs PostgreSQL, if it does: the quick run (ORGNOTE_TEST_QUICK=1) starts
 * no database server, and a developer's machine may lack one. CI never skips for the latter:
 * there, missing binaries fail the tests with the reason.
 */
export function whyNoPostgres(): string | undefined {
  if (process.env.ORGNOTE_TEST_QUICK === '1') return 'needs PostgreSQL, run by `npm test`';
  if (!postgresAvailable() && !process.env.CI)
    return 'the PostgreSQL server binaries are not installed (Debian package postgresql)';
  return undefined;
}

/** A describe block that needs a PostgreSQL server, skipped with the reason in its title. */
export function describeWithPostgres(title: string, fn: () => void): void {
  const why = whyNoPostgres();
  if (why) describe.skip(`${title} — SKIPPED: ${why}`, fn);
  else describe(title, fn);
}

/** A server of the test's own, its cluster under the run's temporary folder. */
export async function startPostgres({
  outlive,
}: Pick<StartOptions, 'outlive'> = {}): Promise<PostgresServer> {
  if (process.env.ORGNOTE_TEST_QUICK === '1') {
    throw new Error('The quick run starts no PostgreSQL: put this test under describeWithPostgres');
  }
  return startPrivatePostgres({ outlive, parent: process.env[TEST_TMP_ENV] });
}
