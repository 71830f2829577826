// A provider's bounces and complaints, applied by the store on both engines: a permanent bounce
// makes the address undeliverable once (one event, nothing more mailed), three transient ones in
// 7 days do, a complaint erases and suppresses the address as a leave does, a notice delivered
// twice (or to two replicas at once) changes nothing the second time, an address not on the list
// leaves nothing behind, and the sweep forgets ids after 30 days.
import type { BounceNotice } from '../../../server/bounces/notices';
import type { Store } from '../../../server/store/types';
import {
  besideStore,
  composeInvitation,
  countRows,
  describeEachEngine,
  selectRows,
  type StoreEngine,
} from '../../support/stores';

const START = Date.parse('2026-03-01T00:00:00.000Z');
const DAY = 24 * 60 * 60_000;

const notice = (over: Partial<BounceNotice> = {}): BounceNotice => ({
  id: 'msg-1/0',
  email: 'ann@example.org',
  kind: 'permanent',
  detail: 'Permanent/General 5.1.1',
  ...over,
});

/** The webhook events queued, by type, with their data. */
async function events(store: Store) {
  const rows = await selectRows<{ type: string; payload: string }>(
    store,
    'SELECT type, payload FROM webhook_deliveries ORDER BY created_at',
  );
  return rows.map((row) => ({ type: row.type, data: JSON.parse(row.payload).data }));
}

function bounces(engine: StoreEngine) {
  let time: number;
  const now = () => time;
  let store: Store;

  beforeEach(async () => {
    time = START;
    store = await engine.open({ now });
    await store.webhooks.add({ url: 'https://crm.example/hooks', events: [], withAddress: false });
    await store.signups.add({ email: 'Ann@Example.org', description: '' });
  });

  const stateOf = async (email: string) =>
    (await store.signups.list()).find((row) => row.email.toLowerCase() === email)?.state;

  it('makes an address undeliverable at a permanent bounce, once, with who found it', async () => {
    expect(await store.bounces.apply('ses', notice())).toEqual({ kind: 'undeliverable' });
    expect(await stateOf('ann@example.org')).toBe('undeliverable');
    const [row] = await store.signups.page({ limit: 10, order: 'newest' });
    expect(row.undeliverable_by).toBe('ses');
    expect(row.undeliverable_detail).toBe('Permanent/General 5.1.1');

    // The same notice again (a retry), and another one about the same address.
    expect(await store.bounces.apply('ses', notice())).toEqual({ kind: 'duplicate' });
    expect(await store.bounces.apply('ses', notice({ id: 'msg-2/0' }))).toEqual({
      kind: 'already-undeliverable',
    });
    const undeliverable = (await events(store)).filter(
      (event) => event.type === 'address.undeliverable',
    );
    expect(undeliverable).toHaveLength(1);
    expect(undeliverable[0].data).toMatchObject({
      reason: 'bounced',
      provider: 'ses',
      bounce: 'permanent',
    });
    expect(await countRows(store, 'bounce_notices')).toBe(2);
  });

  it('sends nothing more to a bounced address: its queued mail is set aside, invite passes it over', async () => {
    await store.signups.add({ email: 'bo@example.org', description: '' });
    await store.subscriptions.invite('ann@example.org', {
      again: false,
      compose: composeInvitation,
    });
    expect((await store.mail.counts()).queued).toBe(1);
    // Invited: still mailable, until the provider says the mail bounced.
    await store.bounces.apply('postmark', notice({ id: 'Bounce:1', detail: 'HardBounce (1)' }));
    expect((await store.mail.counts()).queued).toBe(0);
    expect(await store.mail.claim(10)).toEqual([]);
    // invite --next takes the waitlisted ones only: never the bounced address.
    await store.bounces.apply('postmark', notice({ id: 'Bounce:2', email: 'bo@example.org' }));
    expect(await store.signups.oldestWaiting(10)).toEqual([]);
  });

  it('mails no leave link to a bounced address, however often it is asked for', async () => {
    await store.signups.add({ email: 'bo@example.org', description: '' });
    await store.bounces.apply('ses', notice());
    for (const email of ['ann@example.org', 'bo@example.org'])
      await store.addressLinks.askLeaveLink(email);
    const round = await store.addressLinks.mailLeaveLinks(10, composeInvitation);
    expect(round.requests).toBe(2);
    expect(round.mail.map((mail) => mail.message.to)).toEqual(['bo@example.org']);
  });

  it('counts transient bounces: the third within 7 days makes the address undeliverable', async () => {
    const transient = (id: string) =>
      notice({ id, kind: 'transient', detail: 'Transient/General' });
    expect(await store.bounces.apply('ses', transient('t1'))).toEqual({ kind: 'counted' });
    time += 3 * DAY;
    expect(await store.bounces.apply('ses', transient('t2'))).toEqual({ kind: 'counted' });
    expect(await stateOf('ann@example.org')).toBe('waitlisted');
    // The first is more than 7 days old by now: two within the window, still mailed.
    time += 5 * DAY;
    expect(await store.bounces.apply('ses', transient('t3'))).toEqual({ kind: 'counted' });
    time += DAY;
    expect(await store.bounces.apply('ses', transient('t4'))).toEqual({ kind: 'undeliverable' });
    const [row] = await store.signups.page({ limit: 10, order: 'newest' });
    expect(row.state).toBe('undeliverable');
    expect(row.undeliverable_detail).toBe(
      '3 transient bounces in 7 days, the last Transient/General',
    );
  });

  it('treats a complaint as leaving: erased, suppressed, signup.left complained, audited without the address', async () => {
    await store.subscriptions.invite('ann@example.org', {
      again: false,
      compose: composeInvitation,
    });
    const outcome = await store.bounces.apply(
      'sendgrid',
      notice({ id: 'sg-1', kind: 'complaint', detail: 'spamreport' }),
    );
    expect(outcome.kind).toBe('left');
    expect(outcome.kind === 'left' && outcome.mailIds).toHaveLength(1);
    expect(await store.signups.count()).toBe(0);
    expect(await store.suppressions.has('ann@example.org')).toBe(true);
    const [suppression] = await selectRows<{ reason: string }>(
      store,
      'SELECT reason FROM suppressions',
    );
    expect(suppression.reason).toBe('complained');
    const left = (await events(store)).filter((event) => event.type === 'signup.left');
    expect(left).toHaveLength(1);
    expect(left[0].data).toMatchObject({ state: 'left', reason: 'complained' });
    const [entry] = await store.audit.list({ limit: 1 });
    expect(entry).toMatchObject({ account: '(sendgrid complaint)', addresses: 1 });
    expect(JSON.stringify(await store.audit.list({ limit: 10 }))).not.toMatch(/ann@/i);
    // Delivered again: the notice's id is known, nothing happens twice.
    expect(
      await store.bounces.apply('sendgrid', notice({ id: 'sg-1', kind: 'complaint' })),
    ).toEqual({ kind: 'nothing' });
    expect((await events(store)).filter((event) => event.type === 'signup.left')).toHaveLength(1);
  });

  it('stores nothing for an address not on the list, nor for what changes nothing', async () => {
    for (const kind of ['permanent', 'transient', 'complaint', 'ignored'] as const)
      expect(
        await store.bounces.apply(
          'mailgun',
          notice({ id: kind, email: 'nobody@example.org', kind }),
        ),
      ).toEqual({ kind: 'nothing' });
    expect(await store.bounces.apply('mailgun', notice({ kind: 'ignored' }))).toEqual({
      kind: 'nothing',
    });
    expect(await countRows(store, 'bounce_notices')).toBe(0);
    expect(await countRows(store, 'transient_bounces')).toBe(0);
    expect(await store.suppressions.count()).toBe(0);
    expect(await stateOf('ann@example.org')).toBe('waitlisted');
  });

  it("keeps Mailgun's token with the one event it signed", async () => {
    expect(await store.bounces.claimToken('mailgun', 'token-1', 'event-a')).toBe(true);
    expect(await store.bounces.claimToken('mailgun', 'token-1', 'event-a')).toBe(true);
    expect(await store.bounces.claimToken('mailgun', 'token-1', 'event-b')).toBe(false);
    expect(await store.bounces.claimToken('mailgun', 'token-2', 'event-b')).toBe(true);
  });

  it('erases the transient bounces with the address, and forgets ids after 30 days', async () => {
    await store.bounces.apply('ses', notice({ id: 't1', kind: 'transient' }));
    await store.bounces.claimToken('mailgun', 'token-1', 'event-a');
    expect(await countRows(store, 'transient_bounces')).toBe(1);
    await store.erase('ann@example.org', { reason: 'left' });
    expect(await countRows(store, 'transient_bounces')).toBe(0);

    time += 29 * DAY;
    expect(await store.bounces.sweep()).toBe(0);
    time += 2 * DAY;
    expect(await store.bounces.sweep()).toBe(2);
    expect(await countRows(store, 'bounce_notices')).toBe(0);
    expect(await countRows(store, 'bounce_tokens')).toBe(0);
  });

  it('counts the notices of a period beside the mail sent in it', async () => {
    await store.signups.add({ email: 'bo@example.org', description: '' });
    await store.signups.add({ email: 'cy@example.org', description: '' });
    await store.bounces.apply('ses', notice({ id: 'p1' }));
    await store.bounces.apply(
      'ses',
      notice({ id: 't1', email: 'bo@example.org', kind: 'transient' }),
    );
    await store.bounces.apply(
      'ses',
      notice({ id: 'c1', email: 'cy@example.org', kind: 'complaint' }),
    );
    const since = new Date(START - DAY).toISOString();
    expect(await store.bounces.counts(since)).toEqual({
      sent: 0,
      permanent: 1,
      transient: 1,
      complaint: 1,
    });
    expect(await store.bounces.counts(new Date(START + DAY).toISOString())).toMatchObject({
      permanent: 0,
    });
  });

  // Several replicas share PostgreSQL only; SQLite is one instance's.
  if (engine.name === 'postgres')
    it('applies a notice once when two replicas get it at the same moment', async () => {
      const other = await besideStore(store, now);
      try {
        const both = await Promise.all(
          Array.from({ length: 4 }, (_, i) =>
            (i % 2 ? other : store).bounces.apply('resend', notice({ id: 'msg_1' })),
          ),
        );
        expect(both.filter((outcome) => outcome.kind === 'undeliverable')).toHaveLength(1);
        expect(both.filter((outcome) => outcome.kind === 'duplicate')).toHaveLength(3);
        expect(
          (await events(store)).filter((event) => event.type === 'address.undeliverable'),
        ).toHaveLength(1);

        const complaints = await Promise.all(
          [store, other].map((replica) =>
            replica.bounces.apply('resend', notice({ id: 'msg_2', kind: 'complaint' })),
          ),
        );
        expect(complaints.map((outcome) => outcome.kind).sort()).toEqual(['left', 'nothing']);
        expect((await events(store)).filter((event) => event.type === 'signup.left')).toHaveLength(
          1,
        );
      } finally {
        await other.close();
      }
    });
}

describeEachEngine(bounces);
