// The webhook store on both engines: events written in the transaction of the state change they
// report, one per endpoint that asks for them, the address only where an endpoint takes it; the
// retry schedule, Retry-After, a 410 and five failing days; rotation; fenced leases between two
// workers; and an erasure that leaves no event holding the address.
import type { Store } from '../../../server/store/types';
import type { ClaimedWebhook, WebhookEventType } from '../../../server/store/webhooks';
import {
  besideStore,
  composeInvitation,
  countRows,
  describeEachEngine,
  type StoreEngine,
} from '../../support/stores';

const START = Date.parse('2026-03-01T00:00:00.000Z');
const SECOND = 1_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** What these tests are about; a signup's own events have theirs (events.test.ts). */
const INVITATIONS: WebhookEventType[] = ['invitation.sent', 'subscription.activated'];

function contract(engine: StoreEngine) {
  let time: number;
  const now = () => time;
  let store: Store;

  beforeEach(async () => {
    time = START;
    store = await engine.open({ now });
  });

  /** Waitlists and invites `email`; the activation key the invitation carried. */
  async function invite(email: string): Promise<string> {
    await store.signups.add({ email, description: '' });
    let key = '';
    const invitation = await store.subscriptions.invite(email, {
      again: false,
      compose: (to, k) => {
        key = k;
        return composeInvitation(to, k);
      },
    });
    expect(invitation.outcome).toBe('invited');
    return key;
  }

  const bodyOf = (delivery: ClaimedWebhook) =>
    JSON.parse(delivery.payload) as {
      type: string;
      timestamp: string;
      data: Record<string, unknown>;
    };

  it('queues an invitation and a first activation for each endpoint that asks, with the address only where configured', async () => {
    const all = await store.webhooks.add({
      url: 'https://crm.example/hooks',
      events: INVITATIONS,
      withAddress: true,
    });
    const activations = await store.webhooks.add({
      url: 'https://chat.example/hooks',
      events: ['subscription.activated'],
      withAddress: false,
    });
    expect(all.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const key = await invite('Ann@Example.org');
    time += SECOND;
    const invited = await store.webhooks.claim(10);
    expect(invited.map((d) => [d.endpointId, d.type])).toEqual([[all.id, 'invitation.sent']]);
    const body = bodyOf(invited[0]);
    expect(body).toEqual({
      type: 'invitation.sent',
      timestamp: new Date(START).toISOString(),
      data: {
        id: expect.any(Number),
        state: 'invited',
        time: new Date(START).toISOString(),
        email: 'Ann@Example.org',
        language: 'en',
      },
    });
    expect(invited[0].secrets).toEqual([all.secret]);
    expect(await store.webhooks.delivered(invited[0], { status: 200, durationMs: 12 })).toBe(true);

    expect(await store.subscriptions.activate('ann@example.org', key)).toEqual({
      outcome: 'active',
      email: 'Ann@Example.org',
    });
    // Activating again changes nothing, and reports nothing.
    await store.subscriptions.activate('ann@example.org', key);
    time += SECOND;
    const activated = await store.webhooks.claim(10);
    expect(activated.map((d) => [d.endpointId, d.type]).sort()).toEqual(
      [
        [all.id, 'subscription.activated'],
        [activations.id, 'subscription.activated'],
      ].sort(),
    );
    const withoutAddress = activated.find((d) => d.endpointId === activations.id)!;
    expect(bodyOf(withoutAddress).data).toEqual({
      id: body.data.id,
      state: 'activated',
      time: new Date(time - SECOND).toISOString(),
      language: 'en',
    });
    expect(withoutAddress.payload).not.toContain('example.org');
  });

  it('writes no event when the state change does not happen', async () => {
    await store.webhooks.add({
      url: 'https://crm.example/hooks',
      events: INVITATIONS,
      withAddress: false,
    });
    await store.signups.add({ email: 'bo@example.org', description: '' });
    expect((await store.subscriptions.activate('bo@example.org', 'x'.repeat(32))).outcome).toBe(
      'invalid',
    );
    await store.subscriptions.invite('nobody@example.org', {
      again: false,
      compose: composeInvitation,
    });
    expect(await countRows(store, 'webhook_deliveries')).toBe(0);
  });

  it('retries on the schedule, waits as long as Retry-After asks, and gives up after the last', async () => {
    const endpoint = await store.webhooks.add({
      url: 'https://crm.example/hooks',
      events: INVITATIONS,
      withAddress: false,
    });
    await invite('cy@example.org');
    const [first] = await store.webhooks.claim(10);
    expect(
      await store.webhooks.failed(first, { status: 503, durationMs: 5, error: 'status 503' }),
    ).toBe('pending');
    let [row] = await store.webhooks.deliveries(endpoint.id, 10);
    // 5 s, ±10 %.
    expect(row.nextAttemptAt - time).toBeGreaterThanOrEqual(4_500);
    expect(row.nextAttemptAt - time).toBeLessThanOrEqual(5_500);
    expect(await store.webhooks.claim(10)).toEqual([]);

    time = row.nextAttemptAt;
    const [second] = await store.webhooks.claim(10);
    expect(second.id).toBe(first.id);
    await store.webhooks.failed(second, {
      status: 429,
      durationMs: 5,
      error: 'status 429',
      retryAfterMs: 2 * HOUR,
    });
    [row] = await store.webhooks.deliveries(endpoint.id, 10);
    expect(row.nextAttemptAt - time).toBe(2 * HOUR);
    expect({ attempts: row.attempts, lastStatus: row.lastStatus }).toEqual({
      attempts: 2,
      lastStatus: 429,
    });

    // Eight more failures: the schedule's nine retries are spent, and the delivery is given up.
    for (let attempt = 3; attempt <= 10; attempt++) {
      time = (await store.webhooks.deliveries(endpoint.id, 1))[0].nextAttemptAt;
      const [again] = await store.webhooks.claim(10);
      expect(again.id).toBe(first.id);
      await store.webhooks.failed(again, { durationMs: 15_000, error: 'timed out' });
    }
    [row] = await store.webhooks.deliveries(endpoint.id, 10);
    expect({ state: row.state, attempts: row.attempts }).toEqual({ state: 'failed', attempts: 10 });
    time += 2 * DAY;
    expect(await store.webhooks.claim(10)).toEqual([]);
  });

  it('disables an endpoint on a 410, and one whose deliveries have all failed for five days', async () => {
    const gone = await store.webhooks.add({
      url: 'https://a.example/',
      events: INVITATIONS,
      withAddress: false,
    });
    await invite('di@example.org');
    const [delivery] = await store.webhooks.claim(10);
    await store.webhooks.failed(delivery, {
      status: 410,
      durationMs: 3,
      error: 'status 410',
      disable: 'the receiver answered 410 Gone',
    });
    expect(await store.webhooks.get(gone.id)).toMatchObject({
      disabledAt: new Date(time).toISOString(),
      disabledReason: 'the receiver answered 410 Gone',
    });
    await invite('ed@example.org');
    time += DAY;
    expect(await store.webhooks.claim(10)).toEqual([]);
    await store.webhooks.remove(gone.id);

    const failing = await store.webhooks.add({
      url: 'https://b.example/',
      events: INVITATIONS,
      withAddress: false,
    });
    await invite('fay@example.org');
    const start = time;
    // Failing from the first attempt on; a success would clear it (checked below).
    while (time - start < 5 * DAY) {
      const [due] = await store.webhooks.claim(10);
      if (due)
        await store.webhooks.failed(due, { status: 500, durationMs: 1, error: 'status 500' });
      expect((await store.webhooks.get(failing.id))!.disabledAt).toBeNull();
      time = Math.max(time + HOUR, (await store.webhooks.nextDueAt()) ?? 0);
      if (time - start >= 5 * DAY) break;
      await invite(`g${time}@example.org`);
    }
    const [due] = await store.webhooks.claim(10);
    await store.webhooks.failed(due, { status: 500, durationMs: 1, error: 'status 500' });
    expect(await store.webhooks.get(failing.id)).toMatchObject({
      disabledReason: 'every delivery failed for 5 days',
    });
  });

  it('clears the failing time on a success', async () => {
    const endpoint = await store.webhooks.add({
      url: 'https://c.example/',
      events: INVITATIONS,
      withAddress: false,
    });
    await invite('hal@example.org');
    const [delivery] = await store.webhooks.claim(10);
    await store.webhooks.failed(delivery, { status: 500, durationMs: 1, error: 'status 500' });
    expect((await store.webhooks.get(endpoint.id))!.failingSince).toBe(
      new Date(time).toISOString(),
    );
    time += 10 * SECOND;
    const [again] = await store.webhooks.claim(10);
    await store.webhooks.delivered(again, { status: 204, durationMs: 1 });
    expect((await store.webhooks.get(endpoint.id))!.failingSince).toBeNull();
  });

  it('signs with the new secret and the old one during a rotation, then with the new one only', async () => {
    const endpoint = await store.webhooks.add({
      url: 'https://c.example/',
      events: INVITATIONS,
      withAddress: false,
    });
    const rotated = await store.webhooks.rotate(endpoint.id, DAY);
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(endpoint.secret);
    expect(await store.webhooks.rotate('ep_nothing', DAY)).toBeUndefined();
    await store.webhooks.test(endpoint.id);
    const [during] = await store.webhooks.claim(10);
    expect(during.secrets).toEqual([rotated, endpoint.secret]);
    await store.webhooks.delivered(during, { status: 200, durationMs: 1 });

    time += DAY + SECOND;
    await store.webhooks.test(endpoint.id);
    const [after] = await store.webhooks.claim(10);
    expect(after.secrets).toEqual([rotated]);
  });

  it('ends the secrets before a rotation when its shorter grace is over, and at once when it is 0', async () => {
    const endpoint = await store.webhooks.add({
      url: 'https://c.example/',
      events: INVITATIONS,
      withAddress: false,
    });
    const signing = async () => {
      await store.webhooks.test(endpoint.id);
      const [claimed] = await store.webhooks.claim(10);
      await store.webhooks.delivered(claimed, { status: 200, durationMs: 1 });
      return claimed.secrets;
    };
    const second = (await store.webhooks.rotate(endpoint.id, DAY))!;
    time += HOUR;
    const third = (await store.webhooks.rotate(endpoint.id, 30 * 60 * SECOND))!;
    expect(await signing()).toEqual([third, second, endpoint.secret]);
    // The first secret's day is cut short too: no secret outlives the last rotation's grace.
    time += 30 * 60 * SECOND;
    expect(await signing()).toEqual([third]);

    const fourth = (await store.webhooks.rotate(endpoint.id, DAY))!;
    const fifth = (await store.webhooks.rotate(endpoint.id, 0))!;
    expect(fifth).not.toBe(fourth);
    expect(await signing()).toEqual([fifth]);
  });

  it('replays given-up deliveries with their ids and bodies, from the first attempt, and re-enables the endpoint', async () => {
    const endpoint = await store.webhooks.add({
      url: 'https://d.example/',
      events: INVITATIONS,
      withAddress: false,
    });
    const other = await store.webhooks.add({
      url: 'https://e.example/',
      events: INVITATIONS,
      withAddress: false,
    });
    await store.webhooks.test(endpoint.id);
    await store.webhooks.test(other.id);
    const first = await store.webhooks.claim(10);
    const gone = first.find((d) => d.endpointId === endpoint.id)!;
    expect(
      await store.webhooks.failed(gone, {
        status: 410,
        durationMs: 2,
        error: 'status 410',
        disable: 'the receiver answered 410 Gone',
      }),
    ).toBe('failed');
    const elsewhere = first.find((d) => d.endpointId === other.id)!;
    await store.webhooks.failed(elsewhere, {
      status: 410,
      durationMs: 2,
      error: 'status 410',
      disable: 'the receiver answered 410 Gone',
    });
    expect(await store.webhooks.disabledCount()).toBe(2);
    // Written while disabled: it waits, pending, and a replay leaves it as it is.
    await store.webhooks.test(endpoint.id);
    time += DAY;

    expect(await store.webhooks.replay('ep_nothing')).toBeUndefined();
    expect(await store.webhooks.replay(endpoint.id)).toEqual({ queued: 1, reenabled: true });
    expect(await store.webhooks.get(endpoint.id)).toMatchObject({
      disabledAt: null,
      disabledReason: null,
      failingSince: null,
    });
    expect(await store.webhooks.disabledCount()).toBe(1);
    const again = await store.webhooks.claim(10);
    // The replayed delivery, and the test written while the endpoint was disabled.
    expect(again.map((d) => d.endpointId)).toEqual([endpoint.id, endpoint.id]);
    expect(again.map((d) => d.id)).toContain(gone.id);
    const replayed = again.find((d) => d.id === gone.id)!;
    expect(replayed).toMatchObject({ payload: gone.payload, attempts: 0, nextAttemptAt: time });
    // The other endpoint, its delivery given up, is left as it was.
    expect((await store.webhooks.deliveries(other.id, 10))[0]).toMatchObject({
      state: 'failed',
      attempts: 1,
    });
    expect((await store.webhooks.get(other.id))!.disabledAt).not.toBeNull();
    // Replaying again finds nothing given up: the two are in a worker's hands.
    expect(await store.webhooks.replay(endpoint.id)).toEqual({ queued: 0, reenabled: false });
  });

  it('replays, with a time, every delivery created from then on that is not pending, delivered ones too', async () => {
    const endpoint = await store.webhooks.add({
      url: 'https://f.example/',
      events: INVITATIONS,
      withAddress: false,
    });
    const ids: string[] = [];
    for (const status of [200, 200, 503]) {
      await store.webhooks.test(endpoint.id);
      const [delivery] = await store.webhooks.claim(10);
      ids.push(delivery.id);
      if (status === 200) await store.webhooks.delivered(delivery, { status, durationMs: 1 });
      else await store.webhooks.failed(delivery, { status, durationMs: 1, error: 'status 503' });
      time += HOUR;
    }
    // The third is pending, its retry due in 5 s: not touched.
    const third = (await store.webhooks.deliveries(endpoint.id, 1))[0];
    // A time written with an offset names the instant of the second delivery.
    const since = new Date(START + HOUR).toISOString().replace('Z', '+00:00');
    expect(await store.webhooks.replay(endpoint.id, since)).toEqual({
      queued: 1,
      reenabled: false,
    });
    const rows = await store.webhooks.deliveries(endpoint.id, 10);
    expect(rows.map((d) => [d.id, d.state, d.attempts, d.deliveredAt])).toEqual([
      [ids[2], 'pending', 1, null],
      [ids[1], 'pending', 0, null],
      [ids[0], 'delivered', 1, new Date(START).toISOString()],
    ]);
    expect(rows[0].nextAttemptAt).toBe(third.nextAttemptAt);
    // The replayed one is due at once, beside the third's retry, due since.
    expect((await store.webhooks.claim(10)).map((d) => d.id).sort()).toEqual(
      [ids[1], ids[2]].sort(),
    );
  });

  it('prunes delivered and given-up deliveries after 30 days, pending ones only of a disabled endpoint', async () => {
    const endpoint = await store.webhooks.add({
      url: 'https://g.example/',
      events: INVITATIONS,
      withAddress: false,
    });
    // Day 0: one delivered, one given up (a 410), one pending (of the endpoint it disabled).
    await store.webhooks.test(endpoint.id);
    await store.webhooks.delivered((await store.webhooks.claim(10))[0], {
      status: 200,
      durationMs: 1,
    });
    await store.webhooks.test(endpoint.id);
    await store.webhooks.failed((await store.webhooks.claim(10))[0], {
      status: 410,
      durationMs: 1,
      error: 'status 410',
      disable: 'the receiver answered 410 Gone',
    });
    await store.webhooks.test(endpoint.id);
    time += 29 * DAY;
    // Day 29: one more delivered.
    await store.webhooks.replay(endpoint.id);
    await store.webhooks.test(endpoint.id);
    for (const delivery of await store.webhooks.claim(10))
      if (delivery.createdAt === new Date(time).toISOString())
        await store.webhooks.delivered(delivery, { status: 200, durationMs: 1 });
      else await store.webhooks.failed(delivery, { durationMs: 1, error: 'refused' });
    time += DAY + SECOND;

    const before = new Date(time - 30 * DAY).toISOString();
    expect(await store.webhooks.prune(before, 1)).toBe(1);
    expect(await store.webhooks.prune(before, 100)).toBe(0);
    const left = await store.webhooks.deliveries(endpoint.id, 10);
    // The day-0 delivered one went; the day-0 ones replayed and failing again are pending.
    expect(left.map((d) => [d.createdAt.slice(0, 10), d.state])).toEqual([
      ['2026-03-30', 'delivered'],
      ['2026-03-01', 'pending'],
      ['2026-03-01', 'pending'],
    ]);
    time += 60 * DAY;
    expect(await store.webhooks.prune(new Date(time - 30 * DAY).toISOString(), 100)).toBe(1);
    expect((await store.webhooks.deliveries(endpoint.id, 10)).map((d) => d.state)).toEqual([
      'pending',
      'pending',
    ]);

    // Disabled again: its waiting delivery past its 30 days goes with the given-up one.
    const [first, second] = await store.webhooks.claim(10);
    await store.webhooks.failed(first, {
      status: 410,
      durationMs: 1,
      error: 'status 410',
      disable: 'the receiver answered 410 Gone',
    });
    await store.webhooks.failed(second, { durationMs: 1, error: 'refused' });
    expect(await store.webhooks.prune(new Date(time - 30 * DAY).toISOString(), 100)).toBe(2);
    expect(await store.webhooks.deliveries(endpoint.id, 10)).toEqual([]);
  });

  it("refuses a stale worker's outcome once another worker has claimed the delivery", async () => {
    const endpoint = await store.webhooks.add({
      url: 'https://c.example/',
      events: INVITATIONS,
      withAddress: false,
    });
    const other = await besideStore(store, now);
    try {
      await store.webhooks.test(endpoint.id);
      const [stale] = await store.webhooks.claim(10);
      expect(await other.webhooks.claim(10)).toEqual([]);
      time += HOUR; // the first worker stalls past its lease
      const [live] = await other.webhooks.claim(10);
      expect(live.id).toBe(stale.id);
      expect(await other.webhooks.delivered(live, { status: 200, durationMs: 1 })).toBe(true);
      expect(await store.webhooks.failed(stale, { durationMs: 1, error: 'timed out' })).toBe(false);
      const [row] = await store.webhooks.deliveries(endpoint.id, 10);
      expect({ state: row.state, lastStatus: row.lastStatus }).toEqual({
        state: 'delivered',
        lastStatus: 200,
      });
    } finally {
      await other.close();
    }
  });

  it('erases undelivered events about an address and those holding it, and keeps no trace of it in the rest', async () => {
    const withAddress = await store.webhooks.add({
      url: 'https://crm.example/',
      events: INVITATIONS,
      withAddress: true,
    });
    const without = await store.webhooks.add({
      url: 'https://chat.example/',
      events: INVITATIONS,
      withAddress: false,
    });
    const key = await invite('ida@example.org');
    for (const delivery of await store.webhooks.claim(10))
      await store.webhooks.delivered(delivery, { status: 200, durationMs: 1 });
    await store.subscriptions.activate('ida@example.org', key);
    await invite('jo@example.org');
    expect(await countRows(store, 'webhook_deliveries')).toBe(6);

    await store.erase('IDA@example.org');
    // Left: jo's two events, and the delivered invitation.sent that never held the address.
    expect(await countRows(store, 'webhook_deliveries')).toBe(3);
    const kept = [
      ...(await store.webhooks.deliveries(withAddress.id, 10)),
      ...(await store.webhooks.deliveries(without.id, 10)),
    ];
    expect(kept.filter((d) => d.payload.includes('ida@'))).toEqual([]);
    expect(kept.filter((d) => d.state === 'delivered').map((d) => d.endpointId)).toEqual([
      without.id,
    ]);
    expect(await countRows(store, "webhook_deliveries WHERE email_key = 'ida@example.org'")).toBe(
      0,
    );
  });
}

describeEachEngine(contract);
