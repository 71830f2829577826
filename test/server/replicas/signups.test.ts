// Three production servers on one PostgreSQL database, as a load balancer spreads visitors over
// them: started at the same moment on an empty database they all come up (the migration runs once,
// under its advisory lock), and 600 signups sent at once across them, half of them repeats of the
// other half in another letter case and spacing, leave exactly one row per address.
import http from 'node:http';
import { query } from '../../../scripts/lib/launch/postgres';
import { LATEST_VERSION } from '../../../server/store/migrations';
import { runCli } from '../../support/cli';
import { tempDataDir } from '../../support/config';
import { describeWithPostgres } from '../../support/postgres';
import { replicasOnSharedPostgres, send, signUp } from '../../support/replicas';

describeWithPostgres('replicas on one PostgreSQL database', () => {
  const replicas = replicasOnSharedPostgres();

  const settings = (databaseUrl: string) => ({
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'warn',
    SIGNUP_RATE_LIMIT: '0',
  });

  /** The same address as a visitor might type it again: other letter case, spaces around it. */
  function retyped(address: string, i: number): string {
    const cased =
      i % 2 === 0
        ? address.toUpperCase()
        : [...address].map((c, j) => (j % 2 === 0 ? c.toUpperCase() : c)).join('');
    return `${' '.repeat(1 + (i % 3))}${cased}${i % 2 === 0 ? '\t' : '  '}`;
  }

  describe('three replicas on one database', () => {
    it('started at the same moment on an empty database, all become ready on one schema', async () => {
      const databaseUrl = await replicas.createDatabase();
      const servers = await replicas.start(3, settings(databaseUrl));

      const answers = await Promise.all(servers.map((server) => send(server, '/readyz')));
      expect(answers.map((a) => [a.status, JSON.parse(a.body)])).toEqual(
        Array(3).fill([200, { status: 'ready' }]),
      );
      expect(
        await query(databaseUrl, 'SELECT version FROM schema_migrations ORDER BY version'),
      ).toEqual(Array.from({ length: LATEST_VERSION }, (_, i) => ({ version: i + 1 })));
    });

    it('keep exactly one row per address when 600 signups arrive at once, half of them repeats in another case and spacing', async () => {
      const databaseUrl = await replicas.createMigratedDatabase();
      const servers = await replicas.start(3, settings(databaseUrl));
      const addresses = Array.from({ length: 300 }, (_, i) => `replica.signup${i}@example.org`);
      // Original and repeat side by side, so each pair goes to two different replicas at once.
      const sent = addresses.flatMap((address, i) => [address, retyped(address, i)]);
      const agent = new http.Agent({ keepAlive: true, maxSockets: 20 });

      let answers;
      try {
        answers = await Promise.all(
          sent.map((email, j) => signUp(servers[j % servers.length], email, { agent })),
        );
      } finally {
        agent.destroy();
      }

      // The API never tells a repeat from a new address: every one is 201 with the address trimmed.
      expect(answers.map((a) => a.status)).toEqual(Array(600).fill(201));
      expect(answers.map((a) => JSON.parse(a.body))).toEqual(
        sent.map((email) => ({ email: email.trim() })),
      );
      const rows = await query<{ email: string; email_key: string }>(
        databaseUrl,
        'SELECT email, email_key FROM signups',
      );
      expect(rows).toHaveLength(300);
      expect(rows.map((row) => row.email_key).sort()).toEqual([...addresses].sort());
      // Whichever spelling came first is kept, trimmed.
      for (const row of rows)
        expect([
          row.email_key,
          retyped(row.email_key, addresses.indexOf(row.email_key)).trim(),
        ]).toContain(row.email);

      const counted = await runCli(
        { DATABASE_URL: databaseUrl, DATA_DIR: tempDataDir(), LOG_LEVEL: 'warn' },
        ['count'],
      );
      expect(counted).toMatchObject({ code: 0, out: '300\n' });
      // pino's error (50) and fatal (60): none of the replicas met a fault under the load.
      for (const server of servers) expect(server.output()).not.toMatch(/"level":[56]0/);
    });
  });
});
