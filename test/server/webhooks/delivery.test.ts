// Webhooks delivered by the worker to a real receiver on loopback (WEBHOOKS_ALLOW_PRIVATE on),
// verified with the standardwebhooks package as a receiver would, on both engines: a delivery, a
// receiver down and then failing before it takes one (the same webhook-id throughout), a 410, a
// rotation and a revocation, and a redirect that is neither followed nor counted as delivered; a
// disabled endpoint brought back by a replay, and the attempts as the metrics count them.
import { Webhook } from 'standardwebhooks';
import { startReceiver, type Receiver } from '../../../scripts/lib/webhook-receiver';
import { createLogger } from '../../../server/logger';
import { createMetrics } from '../../../server/metrics';
import type { Store } from '../../../server/store/types';
import type { WebhookEventType } from '../../../server/store/webhooks';
import { startWebhookWorker } from '../../../server/workers/webhook-worker';
import { closedPort } from '../../support/backend';
import { composeInvitation, describeEachEngine, type StoreEngine } from '../../support/stores';

const silent = createLogger({ logLevel: 'silent' });
const START = Date.parse('2026-03-01T00:00:00.000Z');
const DAY = 24 * 3_600_000;
/** What these tests are about; a signup's own events have theirs (events.test.ts). */
const INVITATIONS: WebhookEventType[] = ['invitation.sent', 'subscription.activated'];

function delivery(engine: StoreEngine) {
  let time: number;
  const now = () => time;
  let store: Store;
  let worker: ReturnType<typeof startWebhookWorker>;
  const receivers: Receiver[] = [];

  beforeEach(async () => {
    time = START;
    store = await engine.open({ now });
    // Rounds run when the test flushes; the pause never comes within a test.
    worker = startWebhookWorker({
      webhooks: store.webhooks,
      allowPrivate: true,
      logger: silent,
      pollMs: 60_000,
    });
  });
  afterEach(async () => {
    await worker.stop();
    await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
  });

  async function receiver(port?: number): Promise<Receiver> {
    const started = await startReceiver({ port });
    receivers.push(started);
    return started;
  }

  async function invite(email: string) {
    await store.signups.add({ email, description: '' });
    await store.subscriptions.invite(email, { again: false, compose: composeInvitation });
  }

  it('delivers a signed event that standardwebhooks verifies', async () => {
    const hooks = await receiver();
    const endpoint = await store.webhooks.add({
      url: hooks.url,
      events: INVITATIONS,
      withAddress: true,
    });
    await invite('ann@example.org');
    await worker.flush();

    expect(hooks.received).toHaveLength(1);
    const [got] = hooks.received;
    const verified = new Webhook(endpoint.secret).verify(got.body, got.headers);
    expect(verified).toEqual({
      type: 'invitation.sent',
      timestamp: new Date(START).toISOString(),
      data: {
        id: expect.any(Number),
        state: 'invited',
        time: new Date(START).toISOString(),
        email: 'ann@example.org',
        language: 'en',
      },
    });
    expect(got.headers['webhook-id']).toMatch(/^msg_/);
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(got.body, got.headers),
    ).toThrow();
    const [row] = await store.webhooks.deliveries(endpoint.id, 10);
    expect({ state: row.state, attempts: row.attempts, lastStatus: row.lastStatus }).toEqual({
      state: 'delivered',
      attempts: 1,
      lastStatus: 200,
    });
  });

  it('delivers once a receiver that was down and then failing comes back, with one webhook-id', async () => {
    const port = await closedPort();
    const endpoint = await store.webhooks.add({
      url: `http://127.0.0.1:${port}/hooks`,
      events: INVITATIONS,
      withAddress: false,
    });
    await invite('bo@example.org');
    await worker.flush();
    let [row] = await store.webhooks.deliveries(endpoint.id, 10);
    expect({ state: row.state, attempts: row.attempts }).toEqual({ state: 'pending', attempts: 1 });
    expect(row.lastError).toMatch(/ECONNREFUSED/);

    const hooks = await receiver(port);
    hooks.answer = () => ({ status: 503 });
    time = row.nextAttemptAt;
    await worker.flush();
    hooks.answer = () => ({ status: 204 });
    time = (await store.webhooks.deliveries(endpoint.id, 1))[0].nextAttemptAt;
    await worker.flush();

    expect(hooks.received.map((r) => r.headers['webhook-id'])).toEqual([row.id, row.id]);
    for (const got of hooks.received) new Webhook(endpoint.secret).verify(got.body, got.headers);
    [row] = await store.webhooks.deliveries(endpoint.id, 10);
    expect({ state: row.state, attempts: row.attempts, lastStatus: row.lastStatus }).toEqual({
      state: 'delivered',
      attempts: 3,
      lastStatus: 204,
    });
  });

  it('disables an endpoint that answers 410, and sends it nothing more', async () => {
    const hooks = await receiver();
    hooks.answer = () => ({ status: 410 });
    const endpoint = await store.webhooks.add({
      url: hooks.url,
      events: INVITATIONS,
      withAddress: false,
    });
    await invite('cy@example.org');
    await worker.flush();
    expect(await store.webhooks.get(endpoint.id)).toMatchObject({
      disabledReason: 'the receiver answered 410 Gone',
    });
    await invite('di@example.org');
    time += DAY;
    await worker.flush();
    expect(hooks.received).toHaveLength(1);
  });

  it('sends the same webhook-id again once a disabled endpoint is replayed, each attempt counted in the metrics', async () => {
    await worker.stop();
    const metrics = createMetrics({
      pending: { outbox: () => 0, mail: () => 0 },
      webhooksDisabled: () => store.webhooks.disabledCount(),
    });
    worker = startWebhookWorker({
      webhooks: store.webhooks,
      allowPrivate: true,
      logger: silent,
      metrics,
      pollMs: 60_000,
    });
    const attempts = async () => {
      const text = await metrics.text();
      const count = (result: string) =>
        Number(
          new RegExp(
            `^delivery_attempts_total{queue="webhook",result="${result}"} (\\S+)$`,
            'm',
          ).exec(text)?.[1],
        );
      return {
        delivered: count('delivered'),
        retry: count('retry'),
        failed: count('failed'),
        disabled: Number(/^webhook_endpoints_disabled (\S+)$/m.exec(text)?.[1]),
      };
    };
    expect(await attempts()).toEqual({ delivered: 0, retry: 0, failed: 0, disabled: 0 });

    const hooks = await receiver();
    const endpoint = await store.webhooks.add({
      url: hooks.url,
      events: INVITATIONS,
      withAddress: false,
    });
    await store.webhooks.test(endpoint.id);
    hooks.answer = () => ({ status: 503 });
    await worker.flush();
    expect(await attempts()).toEqual({ delivered: 0, retry: 1, failed: 0, disabled: 0 });
    hooks.answer = () => ({ status: 410 });
    time += 10_000;
    await worker.flush();
    expect(await attempts()).toEqual({ delivered: 0, retry: 1, failed: 1, disabled: 1 });
    expect(hooks.received).toHaveLength(2);

    // The receiver is fixed; the operator replays.
    hooks.answer = () => ({ status: 204 });
    time += DAY;
    expect(await store.webhooks.replay(endpoint.id)).toEqual({ queued: 1, reenabled: true });
    await worker.flush();
    expect(hooks.received).toHaveLength(3);
    const [first, , replayed] = hooks.received;
    expect(replayed.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(replayed.body).toBe(first.body);
    expect(new Webhook(endpoint.secret).verify(replayed.body, replayed.headers)).toMatchObject({
      type: 'webhook.test',
    });
    expect(await attempts()).toEqual({ delivered: 1, retry: 1, failed: 1, disabled: 0 });
    const [row] = await store.webhooks.deliveries(endpoint.id, 10);
    expect({ state: row.state, attempts: row.attempts }).toEqual({
      state: 'delivered',
      attempts: 1,
    });
  });

  it('signs with both secrets during a rotation, so a receiver holding either verifies', async () => {
    const hooks = await receiver();
    const endpoint = await store.webhooks.add({
      url: hooks.url,
      events: INVITATIONS,
      withAddress: false,
    });
    const rotated = (await store.webhooks.rotate(endpoint.id, DAY))!;
    await store.webhooks.test(endpoint.id);
    await worker.flush();

    const [got] = hooks.received;
    expect(got.headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(endpoint.secret).verify(got.body, got.headers)).toMatchObject({
      type: 'webhook.test',
    });
    expect(new Webhook(rotated).verify(got.body, got.headers)).toMatchObject({
      type: 'webhook.test',
    });
  });

  it('signs with the new secret only once the old one is revoked, so the old one verifies nothing', async () => {
    const hooks = await receiver();
    const endpoint = await store.webhooks.add({
      url: hooks.url,
      events: INVITATIONS,
      withAddress: false,
    });
    const revoked = (await store.webhooks.rotate(endpoint.id, 0))!;
    await store.webhooks.test(endpoint.id);
    await worker.flush();

    const [got] = hooks.received;
    expect(got.headers['webhook-signature'].split(' ')).toHaveLength(1);
    expect(new Webhook(revoked).verify(got.body, got.headers)).toMatchObject({
      type: 'webhook.test',
    });
    expect(() => new Webhook(endpoint.secret).verify(got.body, got.headers)).toThrow();
  });

  it('does not follow a redirect, and counts it as a failure', async () => {
    const elsewhere = await receiver();
    const hooks = await receiver();
    hooks.answer = () => ({ status: 307, headers: { location: elsewhere.url } });
    const endpoint = await store.webhooks.add({
      url: hooks.url,
      events: INVITATIONS,
      withAddress: false,
    });
    await store.webhooks.test(endpoint.id);
    await worker.flush();

    expect(hooks.received).toHaveLength(1);
    expect(elsewhere.connections).toBe(0);
    const [row] = await store.webhooks.deliveries(endpoint.id, 10);
    expect({ state: row.state, lastStatus: row.lastStatus }).toEqual({
      state: 'pending',
      lastStatus: 307,
    });
  });
}

describeEachEngine(delivery);
