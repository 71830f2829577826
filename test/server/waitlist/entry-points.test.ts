// Every entry point reaches the waitlist through the same operation (server/waitlist/): what the
// CLI and the API leave in the store is exactly what the operation leaves when it is called
// directly. Two real SQLite stores in temp folders with the same signups, one driven through an
// entry point and one through the operation, then compared as an operator would see them.
import fs from 'node:fs';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import request from 'supertest';
import { createApp } from '../../../server/app';
import { runCommand } from '../../../server/cli/waitlist';
import type { Config } from '../../../server/config';
import { openSqliteStore, type Store } from '../../../server/store';
import { activate } from '../../../server/waitlist/activation';
import { invite } from '../../../server/waitlist/invite';
import { signup } from '../../../server/waitlist/signup';
import { subscriptionInfo } from '../../../server/waitlist/subscription-info';
import { capturingLogger, testConfig } from '../../support/config';

const TOKEN = 'sub-api-token-7c4e1d9a2b3f';
const SIGNUPS = ['first@example.org', 'Zoë+Notes@Example.org', 'third@example.org'];

interface Side {
  config: Config;
  store: Store;
}

const opened: Store[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

/** A fresh store with SIGNUPS on the waitlist; mail is written as .eml files to its DATA_DIR. */
async function side(): Promise<Side> {
  const config = testConfig({ SITE_URL: 'https://orgnote.example', SUBSCRIPTION_API_TOKEN: TOKEN });
  const store = openSqliteStore(config);
  opened.push(store);
  for (const email of SIGNUPS) await store.signups.add({ email, description: '' });
  return { config, store };
}

/** What an operator sees of a store: the totals, the mail queue, and who is at which step. */
async function seen({ store }: Side) {
  const rows = await store.signups.list();
  return {
    stats: await store.signups.stats(),
    mail: await store.mail.counts(),
    rows: rows.map((row) => ({
      email: row.email,
      description: row.description,
      invited: row.invited_at !== null,
      activated: row.activated_at !== null,
    })),
  };
}

/**
 * The key in the .eml file written for `id`: the line of its text part that is nothing but a key.
 */
async function keyOf({ config }: Side, id: number): Promise<string> {
  const mail = await simpleParser(fs.readFileSync(path.join(config.dataDir, 'mail', `${id}.eml`)));
  return mail.text!.split('\n').find((line) => /^[A-Za-z0-9_-]{32}$/.test(line))!;
}

async function cli({ store, config }: Side, ...argv: string[]) {
  let out = '';
  const code = await runCommand({ store, config }, argv, { out: (text) => void (out += text) });
  return { code, out };
}

describe('one operation behind every entry point', () => {
  it('invite through the CLI and through the operation: the same states, the same mail, the same exit', async () => {
    const [byCli, byOperation] = [await side(), await side()];
    const targets = ['first@example.org', 'stranger@example.org', 'ZOË+notes@example.org'];

    const { code, out } = await cli(byCli, 'invite', ...targets);
    const result = await invite(byOperation, {
      targets: { addresses: targets },
      again: false,
      dryRun: false,
    });

    expect(result).toEqual({
      kind: 'done',
      counts: {
        sent: 2,
        queued: 0,
        failed: 0,
        skipped: 0,
        unconfirmed: 0,
        'not-on-waitlist': 1,
        unmailable: 0,
      },
      mail: { smtp: false, where: path.join(byOperation.config.dataDir, 'mail') },
    });
    expect(code).toBe(1); // an address not on the waitlist is work not done
    expect(out).toContain(
      '2 sent, 0 queued, 0 failed, 0 skipped, 0 unconfirmed, 1 not on the waitlist, 0 cannot be mailed\n',
    );
    expect(await seen(byCli)).toEqual(await seen(byOperation));
    expect((await seen(byCli)).stats).toEqual({
      total: 3,
      waitlisted: 1,
      invited: 2,
      activated: 0,
      unconfirmed: 0,
      undeliverable: 0,
    });
    expect(fs.readdirSync(path.join(byCli.config.dataDir, 'mail')).sort()).toEqual(
      fs.readdirSync(path.join(byOperation.config.dataDir, 'mail')).sort(),
    );
  });

  it('a dry run through either changes nothing and reports the same', async () => {
    const [byCli, byOperation] = [await side(), await side()];
    const before = await seen(byCli);
    const { code, out } = await cli(byCli, 'invite', '--next', '2', '--dry-run');
    const result = await invite(byOperation, { targets: { next: 2 }, again: false, dryRun: true });
    expect(result).toEqual({
      kind: 'dry-run',
      counts: {
        'would-invite': 2,
        skipped: 0,
        unconfirmed: 0,
        'not-on-waitlist': 0,
        unmailable: 0,
      },
    });
    expect({ code, last: out.split('\n').at(-2) }).toEqual({
      code: 0,
      last: '2 would be invited (dry run: nothing changed)',
    });
    expect(await seen(byCli)).toEqual(before);
    expect(await seen(byOperation)).toEqual(before);
  });

  it('refuses to invite with BACKEND_URL set, as data from the operation and as a refusal from the CLI', async () => {
    const withBackend = await side();
    const config = { ...withBackend.config, backendUrl: 'http://127.0.0.1:9' };
    expect(
      await invite(
        { store: withBackend.store, config },
        { targets: { next: 1 }, again: false, dryRun: false },
      ),
    ).toEqual({
      kind: 'refused',
      reason: 'backend-owns-signups',
    });
    await expect(
      cli({ store: withBackend.store, config }, 'invite', '--next', '1'),
    ).rejects.toThrow('BACKEND_URL is set');
    expect((await seen(withBackend)).stats.invited).toBe(0);
  });

  it('the invited key activates through the API and through the operation alike, and subscription-info agrees', async () => {
    const [byApi, byOperation] = [await side(), await side()];
    for (const s of [byApi, byOperation])
      await invite(s, {
        targets: { addresses: ['first@example.org'] },
        again: false,
        dryRun: false,
      });
    const fields = async (s: Side) => ({
      email: 'First@Example.org',
      key: await keyOf(s, 1),
      externalProvider: 'GitHub',
      externalId: '42',
    });
    const app = createApp(byApi.config, { store: byApi.store });

    const answered = await request(app)
      .post('/api/subscription-activation')
      .send(await fields(byApi));
    const result = await activate(
      { subscriptions: byOperation.store.subscriptions, config: byOperation.config },
      await fields(byOperation),
    );

    expect(answered.status).toBe(200);
    expect(result).toEqual({ kind: 'active', subscription: answered.body });
    expect(answered.body).toEqual({
      email: 'first@example.org',
      isActive: true,
      spaceLimit: byApi.config.spaceLimitBytes,
    });
    expect(await seen(byApi)).toEqual(await seen(byOperation));

    const info = await request(app)
      .get('/api/subscription-info/github/42')
      .set('Authorization', `Token ${TOKEN}`);
    const infoResult = await subscriptionInfo(
      { subscriptions: byOperation.store.subscriptions, config: byOperation.config },
      { provider: 'GITHUB', externalId: '42' },
    );
    expect(info.status).toBe(200);
    expect(infoResult).toEqual({ kind: 'active', subscription: info.body });
  });

  it('an activation refused by the operation names its field as data; the API answers 400 with its message', async () => {
    const byApi = await side();
    const fields = { email: 'first@example.org', key: 'some-key', externalId: '42' };
    const result = await activate(
      { subscriptions: byApi.store.subscriptions, config: byApi.config },
      fields,
    );
    expect(result).toEqual({
      kind: 'invalid',
      field: 'externalProvider',
      message: 'externalId and externalProvider go together',
    });
    const answered = await request(createApp(byApi.config, { store: byApi.store }))
      .post('/api/subscription-activation')
      .send(fields);
    expect({ status: answered.status, body: answered.body }).toEqual({
      status: 400,
      body: { error: result.kind === 'invalid' && result.message },
    });
  });

  it('a signup through the API and through the operation leaves the same row; a refusal names its field', async () => {
    const [byApi, byOperation] = [await side(), await side()];
    const typed = { email: '  Zoë.New@Example.org ', description: 'Says "hi"' };
    const { logger } = capturingLogger();

    const answered = await request(createApp(byApi.config, { store: byApi.store, logger }))
      .post('/api/subscriptions')
      .send(typed);
    const outcome = await signup(
      { config: byOperation.config, store: byOperation.store, logger },
      { fields: typed, from: { client: { forwarded: {} } } },
    );

    expect({ status: answered.status, body: answered.body }).toEqual({
      status: 201,
      body: { email: 'Zoë.New@Example.org' },
    });
    expect(outcome).toEqual({ kind: 'stored', email: 'Zoë.New@Example.org' });
    expect(await seen(byApi)).toEqual(await seen(byOperation));

    const refused = await signup(
      { config: byOperation.config, store: byOperation.store, logger },
      { fields: { email: 'not an address' }, from: { client: { forwarded: {} } } },
    );
    expect(refused).toMatchObject({ kind: 'invalid', field: 'email' });
    const refusedByApi = await request(createApp(byApi.config, { store: byApi.store, logger }))
      .post('/api/subscriptions')
      .send({ email: 'not an address' });
    expect({ status: refusedByApi.status, error: refusedByApi.body.error }).toEqual({
      status: 400,
      error: refused.kind === 'invalid' && refused.message,
    });
  });
});
