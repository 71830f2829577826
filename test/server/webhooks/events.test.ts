// The webhook events of a signup's life, received by a real receiver on loopback and verified
// with the standardwebhooks package, on both engines: signup.created (written by the webhook worker
// after the signup's answer, once, and first among the signup's events), signup.confirmed,
// signup.left (leaving, removal, expiry: never with the address) and address.undeliverable.
// Through the site's API, a signup wakes the worker, so its event arrives without waiting for a
// poll.
import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import { createApp } from '../../../server/app';
import { createLogger } from '../../../server/logger';
import type { Store } from '../../../server/store/types';
import { startWebhookWorker } from '../../../server/workers/webhook-worker';
import { tempDataDir, testConfig } from '../../support/config';
import {
  besideStore,
  composeInvitation,
  countRows,
  describeEachEngine,
  type StoreEngine,
} from '../../support/stores';
import { startReceiver, type Receiver } from '../../../scripts/lib/webhook-receiver';
import { until } from '../../support/wait';

const silent = createLogger({ logLevel: 'silent' });
const START = Date.parse('2026-03-01T00:00:00.000Z');

interface Event {
  type: string;
  timestamp: string;
  data: { id: number; state: string; time: string; email?: string; reason?: string };
}

function events(engine: StoreEngine) {
  let time: number;
  const now = () => time;
  let store: Store;
  let hooks: Receiver;
  let secret: string;
  let worker: ReturnType<typeof startWebhookWorker>;

  /** What the receiver got, each verified as a receiver would (a bad signature throws). */
  const received = (): Event[] =>
    hooks.received.map(({ body, headers }) => new Webhook(secret).verify(body, headers) as Event);

  beforeEach(async () => {
    time = START;
    store = await engine.open({ now });
    hooks = await startReceiver();
    secret = (await store.webhooks.add({ url: hooks.url, events: [], withAddress: true })).secret;
    // Rounds run when the test flushes; the pause never comes within a test.
    worker = startWebhookWorker({
      webhooks: store.webhooks,
      signupEvents: store.signupEvents,
      allowPrivate: true,
      logger: silent,
      pollMs: 60_000,
    });
  });
  afterEach(async () => {
    await worker.stop();
    await hooks.close();
  });

  /** A new confirmation link for `email`, as the mail worker mails it. */
  async function confirmationToken(email: string): Promise<string> {
    let token = '';
    await store.addressLinks.mailConfirmations(10, {
      compose: (to, tokens) => {
        if (to === email) token = tokens.confirm;
        return { ...composeInvitation(to, tokens.confirm), subject: 'Confirm' };
      },
      canMail: () => true,
      validMs: 3_600_000,
    });
    return token;
  }

  it('writes signup.created after the signup, once, with the state it was created in', async () => {
    await store.signups.add({ email: 'Ann@Example.org', description: '' });
    // The signup itself wrote no event, only what it owes: a new and a known address cost alike.
    expect(await countRows(store, 'webhook_deliveries')).toBe(0);

    await worker.flush();
    expect(received()).toEqual([
      {
        type: 'signup.created',
        timestamp: new Date(START).toISOString(),
        data: {
          id: expect.any(Number),
          state: 'waitlisted',
          time: new Date(START).toISOString(),
          email: 'Ann@Example.org',
          language: 'en',
        },
      },
    ]);

    time += 60_000;
    await store.signups.add({ email: 'ann@example.org', description: 'again' });
    await worker.flush();
    expect(hooks.received).toHaveLength(1);
  });

  it('sends signup.confirmed after the signup.created of an unconfirmed signup', async () => {
    await store.signups.add({ email: 'bea@example.org', description: '' }, { confirm: true });
    const token = await confirmationToken('bea@example.org');
    time += 5 * 60_000;
    // Confirmed before the worker wrote the creation: the confirmation writes it first.
    expect((await store.addressLinks.confirm(token)).ok).toBe(true);
    expect((await store.addressLinks.confirm(token)).ok).toBe(false);
    await worker.flush();

    const got = received().sort((a, b) => a.data.time.localeCompare(b.data.time));
    expect(got.map(({ type, data }) => [type, data.state, data.time])).toEqual([
      ['signup.created', 'unconfirmed', new Date(START).toISOString()],
      ['signup.confirmed', 'waitlisted', new Date(time).toISOString()],
    ]);
    expect(got[1].data.id).toBe(got[0].data.id);
  });

  it('sends signup.left without the address, and erases what was not delivered', async () => {
    await store.signups.add({ email: 'cid@example.org', description: '' });
    await worker.flush();
    const [created] = received();
    time += 60_000;
    await store.erase('cid@example.org', { reason: 'left' });
    await worker.flush();
    expect(received()[1]).toEqual({
      type: 'signup.left',
      timestamp: new Date(time).toISOString(),
      data: {
        id: created.data.id,
        state: 'left',
        time: new Date(time).toISOString(),
        reason: 'left',
        language: 'en',
      },
    });
    expect(hooks.received[1].body).not.toContain('cid@');

    // Erased before its creation went out: the creation is never sent, the leaving is.
    await store.signups.add({ email: 'dot@example.org', description: '' });
    await store.erase('dot@example.org');
    await worker.flush();
    expect(
      received()
        .slice(2)
        .map(({ type, data }) => [type, data.reason]),
    ).toEqual([['signup.left', 'removed']]);
    expect(hooks.received.some(({ body }) => body.includes('dot@'))).toBe(false);
  });

  it('says an expired unconfirmed signup left because it expired', async () => {
    await store.signups.add({ email: 'eve@example.org', description: '' }, { confirm: true });
    await confirmationToken('eve@example.org');
    time += 2 * 3_600_000;
    expect((await store.erase('eve@example.org', { onlyIfExpired: true })).signup).toBe(true);
    await worker.flush();
    // Its creation was never delivered, so the erasure took it: only the leaving is sent.
    expect(received().map(({ type, data }) => [type, data.state, data.reason])).toEqual([
      ['signup.left', 'left', 'expired'],
    ]);
  });

  it('sends address.undeliverable when a mail is refused for good, once', async () => {
    await store.signups.add({ email: 'fay@example.org', description: '' });
    time += 60_000;
    const invited = await store.subscriptions.invite('fay@example.org', {
      again: false,
      compose: composeInvitation,
    });
    if (invited.outcome !== 'invited') throw new Error(invited.outcome);
    const { mail } = invited;
    // A leave link the address asked for, queued before the server refused anything.
    await store.addressLinks.askLeaveLink('fay@example.org');
    const asked = await store.addressLinks.mailLeaveLinks(5, (to, token) =>
      composeInvitation(to, token),
    );
    time += 60_000;
    await store.mail.failed(mail.id, '550 no such user', true);
    // Its refusal, the second, changes nothing a receiver keeps.
    await store.mail.failed(asked.mail[0].id, '550 no such user', true);
    await worker.flush();
    const got = received().sort((a, b) => a.data.time.localeCompare(b.data.time));
    expect(got.map(({ type, data }) => [type, data.state])).toEqual([
      ['signup.created', 'waitlisted'],
      ['invitation.sent', 'invited'],
      ['address.undeliverable', 'undeliverable'],
    ]);
  });

  it('writes each owed event once when two replicas take them at once', async () => {
    const other = await besideStore(store, now);
    try {
      const emails = Array.from({ length: 30 }, (_, i) => `p${i}@example.org`);
      for (const email of emails) await store.signups.add({ email, description: '' });
      const rounds = [store, other, store].map(
        (replica) => () => replica.signupEvents.writeDueCreations(20),
      );
      // SQLite has one writer, and one process here: its rounds take turns.
      const written =
        store.engine === 'sqlite'
          ? [await rounds[0](), await rounds[1](), await rounds[2]()]
          : await Promise.all(rounds.map((round) => round()));
      expect(written.reduce((a, b) => a + b, 0)).toBe(30);
      await worker.flush();
      const addresses = received().map(({ data }) => data.email);
      expect(addresses.sort()).toEqual([...emails].sort());
    } finally {
      await other.close();
    }
  });

  it('sends the event of a signup through the API without waiting for a poll', async () => {
    const config = testConfig({ dataDir: tempDataDir() });
    const app = createApp(config, { store, logger: silent, wakeWebhooks: worker.wake });
    await request(app)
      .post('/api/subscriptions')
      .send({ email: 'gus@example.org', description: 'emacs' })
      .expect(201);
    await until('the receiver has the signup.created', () => hooks.received.length === 1, 3_000);
    expect(received()[0]).toMatchObject({
      type: 'signup.created',
      data: { email: 'gus@example.org' },
    });
  });
}

describeEachEngine(events);
