// The console's device cookies (OWASP's "Slow Down Online Guessing Attacks with Device Cookies")
// over HTTP: a flood from many addresses holds the account shut to new browsers but never to a
// browser that logged in before; that browser is counted on its own; a new password, second factor
// or removal makes its cookie worthless; `waitlist admin unlock` lets a new browser in; and a
// refused attempt writes nothing to disk. The store's clock is the test's, so windows fall where
// the test puts them.
import fs from 'node:fs';
import type { Server } from 'node:http';
import path from 'node:path';
import request from 'supertest';
import { createApp } from '../../../server/app';
import { changePassword, enrolTotp, removeAdmin } from '../../../server/console/accounts';
import { THROTTLE } from '../../../server/console/login';
import { openSqliteStore } from '../../../server/store';
import { REMEMBERED_MS } from '../../../server/store/login-throttle';
import type { SqliteStore } from '../../../server/store/sqlite';
import { runCli } from '../../support/cli';
import { testConfig } from '../../support/config';
import { listen } from '../../support/http';
import { addOperator, OPERATOR } from '../../support/console';

const START = Date.parse('2026-04-01T08:00:00.000Z');
let time: number;
let dataDir: string;
let store: SqliteStore;
let site: Server;
beforeEach(async () => {
  time = START;
  // The site trusts its loopback proxy, which says https: X-Forwarded-For names each attempt's
  // client.
  const config = testConfig({ TRUST_PROXY: 'loopback' });
  dataDir = config.dataDir;
  store = openSqliteStore(config, () => time);
  // One listening server for the thousands of requests (supertest would start one per request).
  site = (await listen(createApp(config, { store }))).server;
  await addOperator(store);
});
afterEach(async () => {
  await new Promise((resolve) => site.close(resolve));
  await store.close();
});

const DEVICE = '__Host-orgnote-admin-device';

/** A browser: the cookies it was given, sent back on each login. */
class Browser {
  device = '';
  constructor(readonly client = '192.0.2.10') {}

  async logIn(password: string, client = this.client) {
    const res = await request(site)
      .post('/admin/login')
      .set('X-Forwarded-For', client)
      .set('X-Forwarded-Proto', 'https')
      .set('Cookie', this.device)
      .type('form')
      .send({ email: OPERATOR.email, password, code: '' });
    const given = (res.get('Set-Cookie') ?? []).find((header) => header.startsWith(`${DEVICE}=`));
    if (given) this.device = given.split(';')[0];
    return res;
  }
}

/** `count` wrong passwords, each from a client address of its own; their statuses. */
async function flood(count: number, browser = new Browser()) {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++)
    statuses.push((await browser.logIn(`wrong ${i}`, `198.51.${i >> 8}.${i & 255}`)).status);
  return statuses;
}

const countOf = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

it('after 1 000 wrong attempts from many addresses, the browser that logged in before gets in at once; a new one waits for the window', async () => {
  const operator = new Browser();
  expect((await operator.logIn(OPERATOR.password)).status).toBe(303);
  expect(operator.device).toMatch(/^__Host-orgnote-admin-device=\S+$/);

  const statuses = await flood(1000);
  expect([countOf(statuses, 401), countOf(statuses, 429)]).toEqual([THROTTLE.failures, 995]);

  time += 60_000;
  const known = await operator.logIn(OPERATOR.password);
  expect(known.status).toBe(303);
  expect(known.headers.location).toBe('/admin');

  const stranger = await new Browser('192.0.2.77').logIn(OPERATOR.password);
  expect(stranger.status).toBe(429);
  // The lock ends with the window the five failures fell in, however many were refused since.
  const retryAfter = Number(stranger.headers['retry-after']);
  expect(retryAfter).toBe(Math.ceil((START + THROTTLE.windowMs + 1 - time) / 1000));
  time += retryAfter * 1000;
  expect((await new Browser('192.0.2.78').logIn(OPERATOR.password)).status).toBe(303);
  // A thousand logins take several seconds, over 20 on a machine the rest of the suite loads.
}, 60_000);

it("counts a known browser's wrong passwords on their own: five lock that browser, not the others", async () => {
  const operator = new Browser();
  await operator.logIn(OPERATOR.password);
  for (let i = 0; i < THROTTLE.failures; i++)
    expect((await operator.logIn(`typo ${i}`)).status).toBe(401);
  expect((await operator.logIn(OPERATOR.password)).status).toBe(429);
  // From the same address, a browser the account does not know still has its five.
  expect((await new Browser().logIn(OPERATOR.password)).status).toBe(303);
});

it.each([
  ['a new password', () => changePassword({ store }, OPERATOR.email, OPERATOR.password)],
  ['a second factor', () => enrolTotp({ store }, OPERATOR.email)],
  [
    'removing the account and adding it again',
    async () => {
      await removeAdmin({ store }, OPERATOR.email);
      await addOperator(store);
    },
  ],
])('makes a device cookie worthless after %s', async (_change, change) => {
  const operator = new Browser();
  await operator.logIn(OPERATOR.password);
  await flood(THROTTLE.failures + 1);
  await change();
  time += REMEMBERED_MS; // the change, not the memory, decides
  expect((await operator.logIn(OPERATOR.password)).status).toBe(429);
});

it('trusts no cookie that was not signed here for this account', async () => {
  const operator = new Browser();
  await operator.logIn(OPERATOR.password);
  await flood(THROTTLE.failures + 1);
  const [nonce, generation, signature] = operator.device.split('=')[1].split('.');
  const forged = [
    `${nonce.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'))}.${generation}.${signature}`,
    `${nonce}.${generation}.${'A'.repeat(43)}`,
    `${nonce}..${signature}`,
    'garbage',
  ];
  for (const value of forged) {
    const browser = new Browser();
    browser.device = `${DEVICE}=${value}`;
    expect([value, (await browser.logIn(OPERATOR.password)).status]).toEqual([value, 429]);
  }
});

it('lets a new browser in after `waitlist admin unlock`, recorded in the audit log by the cli', async () => {
  await flood(THROTTLE.failures + 1);
  expect((await new Browser().logIn(OPERATOR.password)).status).toBe(429);
  expect(await runCli({ DATA_DIR: dataDir }, ['admin', 'unlock', OPERATOR.email])).toMatchObject({
    code: 0,
    out: `Unlocked ${OPERATOR.email}: a new browser may log in again (on every replica within 5 seconds).\n`,
  });
  expect(
    await runCli({ DATA_DIR: dataDir }, ['admin', 'unlock', 'nobody@example.org']),
  ).toMatchObject({
    code: 1,
    err: 'waitlist: no account for nobody@example.org\n',
  });
  // This replica refused from memory a moment ago; within seconds it asks the store again.
  time += REMEMBERED_MS;
  expect((await new Browser('192.0.2.99').logIn(OPERATOR.password)).status).toBe(303);
  const entries = await store.audit.list({ limit: 100 });
  expect(entries.find((e) => e.action.startsWith('admin unlock'))).toMatchObject({
    account: 'cli',
    action: `admin unlock ${OPERATOR.email}`,
    client: null,
  });
});

it('writes nothing to disk for 400 refused attempts, and one audit entry for the window', async () => {
  await flood(THROTTLE.failures + 1);
  const files = ['waitlist.db', 'waitlist.db-wal'].map((name) => path.join(dataDir, name));
  const before = files.map((file) => fs.statSync(file, { throwIfNoEntry: false })?.size);
  const entries = (await store.audit.list({ limit: 100 })).length;
  const statuses: number[] = [];
  for (let i = 0; i < 400; i++) {
    time += 100; // 40 s in all: the store is asked again every few seconds, and writes nothing
    statuses.push((await new Browser(`203.0.113.${i & 255}`).logIn(`wrong ${i}`)).status);
  }
  expect(countOf(statuses, 429)).toBe(400);
  expect(files.map((file) => fs.statSync(file, { throwIfNoEntry: false })?.size)).toEqual(before);
  expect((await store.audit.list({ limit: 100 })).length).toBe(entries);
});
