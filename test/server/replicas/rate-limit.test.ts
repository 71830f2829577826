// SIGNUP_RATE_LIMIT holds for the whole site, not per replica: the counters live in PostgreSQL, so
// one client spreading its signups over three replicas gets exactly the limit accepted in a minute.
// Timed: a count slower than its budget (500 ms) falls back to one replica's own count.
import { query } from '../../../scripts/lib/launch/postgres';
import { describeWithPostgres } from '../../support/postgres';
import { clearOfRateWindowEnd } from '../../support/rate-window';
import { replicasOnSharedPostgres, signUp } from '../../support/replicas';

describeWithPostgres('replicas on one PostgreSQL database', () => {
  const LIMIT = 5;
  const replicas = replicasOnSharedPostgres();

  describe('the signup rate limit across three replicas', () => {
    it(`accepts exactly ${LIMIT} signups from one client in a minute, whichever replicas they reach`, async () => {
      const databaseUrl = await replicas.createMigratedDatabase();
      // From 127.0.0.1 the default TRUST_PROXY ('loopback') takes the client from X-Forwarded-For.
      const servers = await replicas.start(3, {
        DATABASE_URL: databaseUrl,
        LOG_LEVEL: 'warn',
        SIGNUP_RATE_LIMIT: String(LIMIT),
      });
      const client = { 'x-forwarded-for': '203.0.113.7' };
      // Its requests in one of the counters' fixed windows (rate-window.ts).
      await clearOfRateWindowEnd(5_000);

      const answers = await Promise.all(
        Array.from({ length: 3 * LIMIT }, (_, i) =>
          signUp(servers[i % servers.length], `limited${i}@example.org`, { headers: client }),
        ),
      );
      // Another client, sent after the flood: counted on its own, not refused with the first.
      const other = await signUp(servers[0], 'other-client@example.org', {
        headers: { 'x-forwarded-for': '198.51.100.9' },
      });

      const accepted = answers.filter((a) => a.status === 201);
      const refused = answers.filter((a) => a.status === 429);
      expect(accepted).toHaveLength(LIMIT);
      expect(refused).toHaveLength(2 * LIMIT);
      for (const answer of refused) {
        expect(JSON.parse(answer.body)).toEqual({
          error: 'Too many submissions; please try again in a minute',
        });
        expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
      }
      expect(other.status).toBe(201);
      const stored = await query<{ email: string }>(databaseUrl, 'SELECT email FROM signups');
      expect(stored.map((row) => row.email).sort()).toEqual(
        [...accepted.map((a) => JSON.parse(a.body).email), 'other-client@example.org'].sort(),
      );
    });
  });
});
