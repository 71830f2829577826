// The figures deploy/prometheus/alerts.yml rests on, as an operator's Prometheus reads them: dead
// items of both queues, confirmation mail due, the store's readiness (the check /readyz makes),
// logins the console's throttle refused, and build_info. First createMetrics with a real SQLite
// store, then the built server on a seeded database, scraped over HTTP.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { isReady } from '../../server/health';
import { createMetrics, NO_METRICS, type Metrics } from '../../server/metrics';
import { openSqliteStore, type SqliteStore } from '../../server/store';
import { capturingLogger, tempDataDir } from '../support/config';
import { addOperator, OPERATOR } from '../support/console';
import { rawRequest } from '../support/http';
import { composeInvitation } from '../support/stores';
import { serverWithMetrics, type ServerProcess } from '../support/server-process';
import { version as PACKAGE_VERSION } from '../../package.json';

/** One sample's value from Prometheus text: `name` with exactly `labels` (undefined if none). */
function sample(text: string, name: string, labels = ''): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ''} `));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

/** build_info's one sample, its version and commit captured. */
const BUILD_INFO = /^build_info\{version="([^"]*)",commit="([^"]*)"\} 1$/m;

const stores: SqliteStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

function sqlite(): SqliteStore {
  const store = openSqliteStore({ dataDir: tempDataDir() });
  stores.push(store);
  return store;
}

const zero = () => 0;
const noPending = { outbox: zero, mail: zero };

describe('the gauges counted on each scrape', () => {
  it('count dead outbox items, dead mail and confirmations owed when asked', async () => {
    let dead = 2;
    const metrics = createMetrics({
      pending: noPending,
      dead: { outbox: async () => dead, mail: () => 1 },
      confirmationsDue: async () => 5,
    });
    let text = await metrics.text();
    expect([sample(text, 'outbox_dead'), sample(text, 'mail_dead')]).toEqual([2, 1]);
    expect(sample(text, 'confirmations_owed')).toBe(5);
    dead = 0;
    text = await metrics.text();
    expect(sample(text, 'outbox_dead')).toBe(0);
  });

  it('read NaN, as the pending gauges do, when a count fails or hangs', async () => {
    const { logger, lines } = capturingLogger();
    const metrics = createMetrics({
      pending: noPending,
      dead: { outbox: () => Promise.reject(new Error('postgres://site:s3cret@db')), mail: zero },
      confirmationsDue: () => new Promise<number>(() => {}),
      logger,
      pendingTimeoutMs: 50,
    });
    const text = await metrics.text();
    expect(sample(text, 'outbox_dead')).toBeNaN();
    expect(sample(text, 'confirmations_owed')).toBeNaN();
    expect(sample(text, 'mail_dead')).toBe(0);
    const gauges = lines.map((line) => JSON.parse(line).gauge);
    expect(gauges.sort()).toEqual(['confirmations_owed', 'outbox_dead']);
    expect(lines.join('')).not.toContain('s3cret');
  });

  it('are not exported without their source, so no gauge reads a made-up 0', async () => {
    const text = await createMetrics({ pending: noPending }).text();
    for (const name of ['outbox_dead', 'mail_dead', 'confirmations_owed', 'store_ready']) {
      expect(text).not.toContain(`# TYPE ${name} `);
    }
  });
});

describe('store_ready', () => {
  function readiness(store: Parameters<typeof isReady>[0], timeoutMs = 1_000) {
    return createMetrics({ pending: noPending, ready: () => isReady(store, timeoutMs) });
  }

  it('is 1 while the SQLite store answers and 0 once it is closed', async () => {
    const store = sqlite();
    const metrics = readiness(store);
    expect(sample(await metrics.text(), 'store_ready')).toBe(1);
    await store.close();
    stores.splice(stores.indexOf(store), 1);
    expect(sample(await metrics.text(), 'store_ready')).toBe(0);
  });

  it('is 0 when the store does not answer within the readiness timeout', async () => {
    // The ping never settles: only the readiness timeout can give the 0.
    const silent = { ping: () => new Promise<void>(() => {}) };
    expect(sample(await readiness(silent, 100).text(), 'store_ready')).toBe(0);
  });
});

describe('build_info and throttled logins', () => {
  it('build_info is 1, labelled with the version and commit only', async () => {
    const build = { version: '9.9.9', commit: 'abc1234' };
    const metrics = createMetrics({ pending: noPending, build });
    const text = await metrics.text();
    expect(sample(text, 'build_info', 'version="9.9.9",commit="abc1234"')).toBe(1);
    expect(text.split('\n').filter((line) => line.startsWith('build_info'))).toHaveLength(1);
  });

  it('build_info names this checkout when no build is given (a tsx or Jest run)', async () => {
    const text = await createMetrics({ pending: noPending }).text();
    const [, version, commit] = BUILD_INFO.exec(text) ?? [];
    expect([version, commit]).toEqual([PACKAGE_VERSION, expect.stringMatching(/^[0-9a-f]{7,}$/)]);
  });

  it('console_logins_throttled_total counts from 0; NO_METRICS takes the call', async () => {
    const metrics: Metrics = createMetrics({ pending: noPending });
    expect(sample(await metrics.text(), 'console_logins_throttled_total')).toBe(0);
    metrics.loginThrottled();
    metrics.loginThrottled();
    expect(sample(await metrics.text(), 'console_logins_throttled_total')).toBe(2);
    expect(() => NO_METRICS.loginThrottled()).not.toThrow();
  });
});

describe('the built server', () => {
  const site = serverWithMetrics();
  const { metricsPort } = site;
  let server: ServerProcess;

  /**
   * A database as a troubled site leaves it: an outbox item and a mail past the maximum age
   * (dead), two signups owed a confirmation, and an operator account (the console is on).
   */
  async function troubledDatabase(dataDir: string): Promise<void> {
    let time = Date.now();
    const store = openSqliteStore({ dataDir, maxAgeMs: 60_000 }, () => time);
    const fields: [string, string][] = [['email', 'late@example.org']];
    const request = { path: '/api/subscriptions', fields };
    await store.outbox.enqueue({ ...request, forwarded: {}, idempotencyKey: 'k-1' });
    await store.signups.add({ email: 'invited@example.org', description: '' });
    const invited = 'invited@example.org';
    const invitation = await store.subscriptions.invite(invited, {
      again: false,
      compose: composeInvitation,
    });
    expect(invitation.outcome).toBe('invited');
    time += 5 * 60_000;
    const [item] = await store.outbox.claim(1);
    await store.outbox.failed(item, 'status 503');
    const [mail] = await store.mail.claim(1);
    await store.mail.retry(mail, '421 try again later');
    for (const email of ['one@example.org', 'two@example.org']) {
      await store.signups.add({ email, description: '' }, { confirm: true });
    }
    await addOperator(store);
    await store.close();
  }

  beforeAll(async () => {
    const dataDir = tempDataDir();
    await troubledDatabase(dataDir);
    // CONFIRM_SIGNUPS stays off, so the mail worker leaves the confirmations owed as they are.
    server = await site.start({ DATA_DIR: dataDir });
  });

  it('exports dead items, mail owed, readiness and the build; /healthz the version', async () => {
    const text = (await rawRequest(metricsPort, '/metrics')).body.toString('utf8');
    expect(sample(text, 'outbox_dead')).toBe(1);
    expect(sample(text, 'mail_dead')).toBe(1);
    expect(sample(text, 'outbox_pending')).toBe(0);
    expect(sample(text, 'confirmations_owed')).toBe(2);
    expect(sample(text, 'store_ready')).toBe(1);

    const [, version, commit] = BUILD_INFO.exec(text) ?? [];
    expect(version).toBe(PACKAGE_VERSION);
    // A commit of this repository (the build embeds the HEAD it was built from).
    const root = path.resolve(__dirname, '../..');
    const type = execFileSync('git', ['cat-file', '-t', commit], { cwd: root, encoding: 'utf8' });
    expect(type.trim()).toBe('commit');

    const health = await rawRequest(server.port, '/healthz');
    const healthz = JSON.parse(health.body.toString('utf8'));
    expect(healthz).toEqual({ status: 'ok', outbox: 0, version: PACKAGE_VERSION });
  });

  it('counts each console login the throttle refuses, and only those', async () => {
    const login = async (password: string) => {
      const body = new URLSearchParams({ email: OPERATOR.email, password, code: '' }).toString();
      const form = { 'content-type': 'application/x-www-form-urlencoded' };
      return (await rawRequest(server.port, '/admin/login', form, 'POST', body)).status;
    };
    const statuses = [];
    for (let attempt = 0; attempt < 7; attempt++) statuses.push(await login('not the password'));
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
    // The right password, while the throttle holds, is refused too, and counted.
    expect(await login(OPERATOR.password)).toBe(429);
    const text = (await rawRequest(metricsPort, '/metrics')).body.toString('utf8');
    expect(sample(text, 'console_logins_throttled_total')).toBe(3);
  });
});
