// With WEBHOOKS_ALLOW_PRIVATE off, a webhook goes only over https to public addresses, and the
// check is made as the socket connects: a public-looking name whose lookup answers a loopback
// address is refused before any connection, whichever answer an earlier lookup gave.
import { createLogger } from '../../../server/logger';
import { openSqliteStore } from '../../../server/store';
import { startWebhookWorker } from '../../../server/workers/webhook-worker';
import { isPublicAddress, type ResolveAll } from '../../../server/webhooks/address-guard';
import { sendWebhook } from '../../../server/webhooks/send';
import { tempDataDir } from '../../support/config';
import { startReceiver, type Receiver } from '../../../scripts/lib/webhook-receiver';

const toLoopback: ResolveAll = (_hostname, callback) =>
  callback(null, [{ address: '127.0.0.2', family: 4 }]);

describe('the address guard', () => {
  let listening: Receiver;

  beforeEach(async () => {
    listening = await startReceiver({ host: '127.0.0.2' });
  });
  afterEach(() => listening.close());

  it('refuses a name that resolves to a loopback address before any connection', async () => {
    const url = `https://hooks.example.com:${listening.port}/hooks`;
    await expect(
      sendWebhook(url, {}, '{}', { timeoutMs: 5_000, allowPrivate: false, resolve: toLoopback }),
    ).rejects.toThrow('hooks.example.com is not a public address (WEBHOOKS_ALLOW_PRIVATE is off)');
    expect(listening.connections).toBe(0);
  });

  it('refuses a name whose second answer turns private after a public first one', async () => {
    let answers = 0;
    const rebinding: ResolveAll = (hostname, callback) =>
      answers++ === 0
        ? callback(null, [{ address: '93.184.215.14', family: 4 }])
        : toLoopback(hostname, callback);
    // The first answer is what a check before the request would see; the socket asks again.
    rebinding('hooks.example.com', () => {});
    await expect(
      sendWebhook(`https://hooks.example.com:${listening.port}/`, {}, '{}', {
        timeoutMs: 5_000,
        allowPrivate: false,
        resolve: rebinding,
      }),
    ).rejects.toThrow('not a public address');
    expect(listening.connections).toBe(0);
  });

  it('refuses plain http and a literal private address without the setting, and takes them with it', async () => {
    await expect(
      sendWebhook(listening.url, {}, '{}', { timeoutMs: 5_000, allowPrivate: false }),
    ).rejects.toThrow('not an https URL');
    await expect(
      sendWebhook(`https://127.0.0.2:${listening.port}/`, {}, '{}', {
        timeoutMs: 5_000,
        allowPrivate: false,
      }),
    ).rejects.toThrow('127.0.0.2 is not a public address');
    for (const literal of ['[::7f00:1]', '[::ffff:0:7f00:1]'])
      await expect(
        sendWebhook(`https://${literal}:${listening.port}/`, {}, '{}', {
          timeoutMs: 5_000,
          allowPrivate: false,
        }),
      ).rejects.toThrow(`${literal.slice(1, -1)} is not a public address`);
    expect(listening.connections).toBe(0);

    const answer = await sendWebhook(listening.url, {}, '{}', {
      timeoutMs: 5_000,
      allowPrivate: true,
    });
    expect(answer.status).toBe(200);
    expect(listening.connections).toBe(1);
  });

  it("records the refusal on the endpoint's delivery when the worker meets it", async () => {
    const store = openSqliteStore({ dataDir: tempDataDir() });
    const worker = startWebhookWorker({
      webhooks: store.webhooks,
      allowPrivate: false,
      logger: createLogger({ logLevel: 'silent' }),
      pollMs: 60_000,
      resolve: toLoopback,
    });
    try {
      const endpoint = await store.webhooks.add({
        url: `https://hooks.example.com:${listening.port}/`,
        events: [],
        withAddress: false,
      });
      await store.webhooks.test(endpoint.id);
      await worker.flush();
      const [row] = await store.webhooks.deliveries(endpoint.id, 10);
      expect({ state: row.state, lastStatus: row.lastStatus, lastError: row.lastError }).toEqual({
        state: 'pending',
        lastStatus: null,
        lastError: 'hooks.example.com is not a public address (WEBHOOKS_ALLOW_PRIVATE is off)',
      });
      expect(listening.connections).toBe(0);
    } finally {
      await worker.stop();
      await store.close();
    }
  });

  it.each([
    ['127.0.0.1', false],
    ['10.1.2.3', false],
    ['172.20.0.1', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['::1', false],
    ['fe80::1', false],
    ['fd00::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:7f00:1', false],
    ['0:0:0:0:0:ffff:7f00:1', false],
    ['::ffff:5db8:d70e', true],
    ['0:0:0:0:0:ffff:5db8:d70e', true],
    // IPv4-compatible (::/96) and IPv4-translated (::ffff:0:0:0/96): refused whatever they carry.
    ['::7f00:1', false],
    ['::127.0.0.1', false],
    ['::5db8:d70e', false],
    ['::ffff:0:7f00:1', false],
    ['::ffff:0:127.0.0.1', false],
    ['::ffff:0:5db8:d70e', false],
    ['93.184.215.14', true],
    ['2606:4700:4700::1111', true],
  ])('judges %s public: %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});
