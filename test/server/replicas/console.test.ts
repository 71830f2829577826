// The console on two replicas of one PostgreSQL: a session opened on one is honoured by
// the other and ended for both by a logout on either; failed logins on both count together; a
// device cookie signed on one is trusted by the other.
import request from 'supertest';
import { createApp } from '../../../server/app';
import { hashPassword } from '../../../server/console/password';
import { openPostgresStore, type PostgresStore } from '../../../server/store/postgres';
import { testConfig } from '../../support/config';
import { sharedPostgres, type SharedPostgres } from '../../support/shared-postgres';
import { describeWithPostgres } from '../../support/postgres';

describeWithPostgres('the console on two replicas', () => {
  const PASSWORD = 'correct horse battery staple';
  let postgres: SharedPostgres;
  const stores: PostgresStore[] = [];

  beforeAll(async () => {
    postgres = await sharedPostgres();
  });
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
  });
  afterAll(() => postgres?.dropDatabases());

  /** Two replicas of the site on one fresh database, with one account. */
  async function twoReplicas() {
    const databaseUrl = await postgres.createMigratedDatabase();
    const apps = [];
    for (let i = 0; i < 2; i++) {
      const store = await openPostgresStore({ databaseUrl, timeoutMs: 5_000 });
      stores.push(store);
      apps.push(createApp(testConfig({ DATABASE_URL: databaseUrl }), { store }));
    }
    await stores[0].admins.add('ops@example.org', await hashPassword(PASSWORD));
    return apps;
  }

  const login = (app: ReturnType<typeof createApp>, password: string) =>
    request(app)
      .post('/admin/login')
      .type('form')
      .send({ email: 'ops@example.org', password, code: '' });

  it('honours a session on every replica, and a logout on one ends it on all', async () => {
    const [a, b] = await twoReplicas();
    const cookie = String((await login(a, PASSWORD)).headers['set-cookie']).split(';')[0];
    const onB = await request(b).get('/admin').set('Cookie', cookie);
    expect(onB.status).toBe(200);
    const csrf = /name="csrf" value="([^"]+)"/.exec(onB.text)![1];
    expect(
      (await request(b).post('/admin/logout').set('Cookie', cookie).type('form').send({ csrf }))
        .status,
    ).toBe(303);
    expect((await request(a).get('/admin').set('Cookie', cookie)).status).toBe(303);
  });

  it('counts failed logins on both replicas together: the sixth attempt, right or wrong, is 429 on either', async () => {
    const [a, b] = await twoReplicas();
    for (let i = 0; i < 5; i++)
      expect((await login(i % 2 ? b : a, `wrong password ${i}`)).status).toBe(401);
    expect((await login(a, PASSWORD)).status).toBe(429);
    expect((await login(b, PASSWORD)).status).toBe(429);
  });

  it("trusts a browser's device cookie on every replica, since the key that signs it is in the store", async () => {
    const [a, b] = await twoReplicas();
    const device = String(
      ((await login(a, PASSWORD)).get('Set-Cookie') as string[]).find((header) =>
        header.startsWith('orgnote-admin-device='),
      ),
    ).split(';')[0];
    for (let i = 0; i < 6; i++) await login(i % 2 ? b : a, `wrong password ${i}`);
    expect((await login(a, PASSWORD)).status).toBe(429);
    expect((await login(b, PASSWORD).set('Cookie', device)).status).toBe(303);
  });
});
