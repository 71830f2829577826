// Throttled logins in the audit log: a window's refused attempts leave one entry, whatever their
// number, so a flood cannot fill the log; the next window's first refusal leaves the next. The
// store's clock is the test's, so the 15-minute windows fall where the test puts them.
import request from 'supertest';
import { createApp } from '../../../server/app';
import { THROTTLE } from '../../../server/console/login';
import { openSqliteStore } from '../../../server/store';
import type { SqliteStore } from '../../../server/store/sqlite';
import { addOperator, OPERATOR } from '../../support/console';
import { testConfig } from '../../support/config';

const START = Date.parse('2026-04-01T08:00:00.000Z');
let time: number;
let store: SqliteStore;
let app: ReturnType<typeof createApp>;
beforeEach(async () => {
  time = START;
  const config = testConfig();
  store = openSqliteStore(config, () => time);
  app = createApp(config, { store });
  await addOperator(store);
});
afterEach(() => store.close());

const loginWith = (password: string) =>
  request(app)
    .post('/admin/login')
    .type('form')
    .send({ email: OPERATOR.email, password, code: '' });

const actions = async () => (await store.audit.list({ limit: 1000 })).map((e) => e.action);

it('records 50 throttled attempts in one window as one entry, and the next window as another', async () => {
  for (let i = 0; i < THROTTLE.failures; i++)
    expect((await loginWith(`wrong ${i}`)).status).toBe(401);
  for (let i = 0; i < 50; i++) {
    time += 1000;
    expect((await loginWith(i === 49 ? OPERATOR.password : `wrong ${i}`)).status).toBe(429);
  }
  const throttled = (await store.audit.list({ limit: 1000 })).filter(
    (e) => e.action === 'login throttled',
  );
  expect(throttled).toEqual([
    expect.objectContaining({
      account: OPERATOR.email,
      at: new Date(START + 1000).toISOString(),
      client: '127.0.0.1',
    }),
  ]);
  expect(await actions()).toHaveLength(THROTTLE.failures + 1);

  // The next window: the last one's failures still weigh, so it is throttled, once more.
  time = START + THROTTLE.windowMs;
  for (let i = 0; i < 10; i++) expect((await loginWith(`again ${i}`)).status).toBe(429);
  expect((await actions()).filter((action) => action === 'login throttled')).toHaveLength(2);
  expect((await store.audit.verify()).kind).toBe('intact');
});
