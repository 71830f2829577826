// The store contract for people in control of their address, on both engines:
// confirmation (double opt-in) with its mail in the signup's transaction, the links' tokens (one
// address, one purpose, hashed, expiring, spent once), leave links and the requests for them,
// undeliverable addresses and the expiry of unconfirmed ones. Only the interface is used, and a
// count of the requests waiting; time is the test's clock.
import type { ConfirmationMail, ConfirmationTokens } from '../../../server/store/address-links';
import { QueueFullError } from '../../../server/store/errors';
import type { OutgoingMail } from '../../../server/store/mail-queue';
import type { Store } from '../../../server/store/types';
import { besideStore, countRows, describeEachEngine, type StoreEngine } from '../../support/stores';

const START = Date.parse('2026-03-01T00:00:00.000Z');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const VALID = 72 * HOUR;

const iso = (ms: number) => new Date(ms).toISOString();

function contract(engine: StoreEngine) {
  let time: number;
  let store: Store;

  beforeEach(async () => {
    time = START;
    store = await engine.open({ now: () => time });
  });

  /** A confirmation mail that remembers the tokens each message carried. */
  function confirmations() {
    const sent: { to: string; tokens: ConfirmationTokens }[] = [];
    const mail: ConfirmationMail = {
      validMs: VALID,
      canMail: (address) => !address.includes(','),
      compose(to, tokens): OutgoingMail {
        sent.push({ to, tokens });
        return {
          from: 'no-reply@orgnote.example',
          to,
          subject: 'Confirm',
          text: tokens.confirm,
          html: '',
          messageId: `<c${sent.length}@x>`,
          date: iso(time),
        };
      },
    };
    return { mail, sent };
  }

  /**
   * A signup with confirmation on, then the mail worker's step that writes the confirmation it
   * owes.
   */
  async function addConfirming(
    signup: { email: string; description: string },
    mail: ConfirmationMail,
  ): Promise<boolean> {
    const added = await store.signups.add(signup, { confirm: true });
    await store.addressLinks.mailConfirmations(100, mail);
    return added;
  }

  const inviteCompose = (to: string, key: string, leave: string): OutgoingMail => ({
    from: 'no-reply@orgnote.example',
    to,
    subject: 'Invitation',
    text: `${key} ${leave}`,
    html: '',
    messageId: `<i-${key}@x>`,
    date: iso(time),
  });

  describe('confirmation', () => {
    it('keeps a new signup unconfirmed, owing a confirmation mail the worker writes once, until the link is used', async () => {
      const { mail, sent } = confirmations();
      expect(
        await store.signups.add({ email: 'Ann@Example.org', description: '' }, { confirm: true }),
      ).toBe(true);
      // Owed by the signup's own statement; the mail worker writes it, queued and claimed for
      // itself.
      expect(await store.mail.counts()).toMatchObject({ queued: 0 });
      expect(await store.signups.confirmationsDue()).toBe(1);
      const written = await store.addressLinks.mailConfirmations(10, mail);
      expect(await store.signups.confirmationsDue()).toBe(0);
      expect(written.map((m) => m.message.to)).toEqual(['Ann@Example.org']);
      expect(sent.map((s) => s.to)).toEqual(['Ann@Example.org']);
      expect(await store.mail.counts()).toMatchObject({ queued: 1 });
      expect(await store.mail.claim(10)).toEqual([]);
      expect(await store.addressLinks.mailConfirmations(10, mail)).toEqual([]);
      expect(await store.subscriptions.stateOf('ann@example.org')).toBe('unconfirmed');
      expect(await store.signups.oldestWaiting(10)).toEqual([]);
      expect(await store.signups.stats()).toMatchObject({
        total: 1,
        unconfirmed: 1,
        waitlisted: 0,
      });

      // Looking at the link (the GET) changes nothing; using it (the POST) confirms, once.
      expect(await store.addressLinks.check('confirm', sent[0].tokens.confirm)).toEqual({
        ok: true,
        subscriptionActive: false,
      });
      expect(await store.subscriptions.stateOf('ann@example.org')).toBe('unconfirmed');
      time += 5 * MINUTE;
      expect(await store.addressLinks.confirm(sent[0].tokens.confirm)).toEqual({ ok: true });
      expect(await store.subscriptions.stateOf('ann@example.org')).toBe('waitlisted');
      expect((await store.signups.list())[0]).toMatchObject({
        confirmed_at: iso(START + 5 * MINUTE),
        state: 'waitlisted',
      });
      expect(await store.signups.oldestWaiting(10)).toEqual(['Ann@Example.org']);
      expect(await store.addressLinks.confirm(sent[0].tokens.confirm)).toEqual({
        ok: false,
        refusal: 'spent',
      });
      expect(await store.addressLinks.check('confirm', sent[0].tokens.confirm)).toEqual({
        ok: false,
        refusal: 'spent',
      });
    });

    it('mails an unconfirmed address again on a repeat at most once an hour, a confirmed one never', async () => {
      const { mail, sent } = confirmations();
      await addConfirming({ email: 'ann@example.org', description: '' }, mail);
      time += 30 * MINUTE;
      expect(await addConfirming({ email: 'ANN@example.org', description: '' }, mail)).toBe(false);
      expect(sent).toHaveLength(1);
      time += 31 * MINUTE;
      await addConfirming({ email: 'ann@example.org', description: '' }, mail);
      expect(sent).toHaveLength(2);
      // Either link confirms; then both are spent, and repeats mail nothing.
      expect(await store.addressLinks.confirm(sent[0].tokens.confirm)).toEqual({ ok: true });
      expect(await store.addressLinks.confirm(sent[1].tokens.confirm)).toEqual({
        ok: false,
        refusal: 'spent',
      });
      time += 2 * HOUR;
      await addConfirming({ email: 'ann@example.org', description: '' }, mail);
      expect(sent).toHaveLength(2);
      expect(await store.mail.counts()).toMatchObject({ queued: 2 });
    });

    it('confirms nothing with an expired, unknown, malformed or other-purpose token', async () => {
      const { mail, sent } = confirmations();
      await addConfirming({ email: 'ann@example.org', description: '' }, mail);
      const { confirm, leave } = sent[0].tokens;
      const altered = `${confirm.slice(0, -1)}${confirm.endsWith('A') ? 'B' : 'A'}`;
      expect(await store.addressLinks.confirm(altered)).toEqual({ ok: false, refusal: 'invalid' });
      expect(await store.addressLinks.confirm(leave)).toEqual({ ok: false, refusal: 'invalid' });
      expect(await store.addressLinks.confirm('short')).toEqual({
        ok: false,
        refusal: 'malformed',
      });
      expect(await store.addressLinks.confirm(`${confirm}'; DROP TABLE signups; --`)).toEqual({
        ok: false,
        refusal: 'malformed',
      });
      time += VALID;
      expect(await store.addressLinks.confirm(confirm)).toEqual({ ok: false, refusal: 'expired' });
      expect(await store.subscriptions.stateOf('ann@example.org')).toBe('unconfirmed');
    });

    it('never invites an unconfirmed address, named or not', async () => {
      const { mail } = confirmations();
      await addConfirming({ email: 'ann@example.org', description: '' }, mail);
      expect(
        await store.subscriptions.invite('ann@example.org', {
          again: true,
          compose: inviteCompose,
        }),
      ).toEqual({
        outcome: 'unconfirmed',
        email: 'ann@example.org',
      });
      expect(await store.signups.oldestWaiting(10)).toEqual([]);
    });

    it('stores an address no mail can go to unconfirmed, with no mail and no link, until it expires', async () => {
      const { mail, sent } = confirmations();
      expect(await addConfirming({ email: 'evil,victim@example.org', description: '' }, mail)).toBe(
        true,
      );
      expect(sent).toEqual([]);
      expect(await store.mail.counts()).toMatchObject({ queued: 0 });
      expect(await store.subscriptions.stateOf('evil,victim@example.org')).toBe('unconfirmed');
      expect(await store.signups.expiredUnconfirmed(iso(START - 1), 10)).toEqual([]);
      time += VALID;
      expect(await store.signups.expiredUnconfirmed(iso(time - VALID), 10)).toEqual([
        'evil,victim@example.org',
      ]);
    });

    it('counts a signup taken without confirmation as confirmed when it joined', async () => {
      await store.signups.add({ email: 'bob@example.org', description: '' });
      expect((await store.signups.list())[0]).toMatchObject({
        created_at: iso(START),
        confirmed_at: iso(START),
        state: 'waitlisted',
      });
    });
  });

  describe('expiry', () => {
    it('finds the unconfirmed addresses whose every link has expired, and erases them only while that still holds', async () => {
      const { mail, sent } = confirmations();
      await addConfirming({ email: 'old@example.org', description: '' }, mail);
      await addConfirming({ email: 'renewed@example.org', description: '' }, mail);
      await addConfirming({ email: 'kept@example.org', description: '' }, mail);
      await store.signups.add({ email: 'plain@example.org', description: '' });
      time += 2 * HOUR;
      // A repeat mails renewed@ a new link, which works 72 hours from now.
      await addConfirming({ email: 'renewed@example.org', description: '' }, mail);
      await store.addressLinks.confirm(sent[2].tokens.confirm);
      time = START + VALID;
      const createdBefore = iso(time - VALID + 1);
      expect(await store.signups.expiredUnconfirmed(createdBefore, 10)).toEqual([
        'old@example.org',
      ]);
      time = START + 2 * HOUR + VALID;
      expect(await store.signups.expiredUnconfirmed(iso(time), 10)).toEqual([
        'old@example.org',
        'renewed@example.org',
      ]);

      // The sweep's erasure checks again under the lock: a confirmed address stays.
      expect((await store.erase('kept@example.org', { onlyIfExpired: true })).signup).toBe(false);
      expect((await store.erase('old@example.org', { onlyIfExpired: true })).signup).toBe(true);
      // Expired, so suppressed as one who left: an import will not bring it back.
      expect(await store.suppressions.has('old@example.org')).toBe(true);
      expect(await store.suppressions.has('kept@example.org')).toBe(false);
      expect((await store.signups.list()).map((r) => r.email).sort()).toEqual([
        'kept@example.org',
        'plain@example.org',
        'renewed@example.org',
      ]);
      // Its links went with it.
      expect(await store.addressLinks.check('confirm', sent[0].tokens.confirm)).toEqual({
        ok: false,
        refusal: 'invalid',
      });
      expect(await store.addressLinks.check('leave', sent[0].tokens.leave)).toEqual({
        ok: false,
        refusal: 'invalid',
      });
    });
  });

  describe('leave links', () => {
    it('names the address of a good leave link, for that purpose only, and says whether a subscription is active', async () => {
      await store.signups.add({ email: 'Ann@example.org', description: '' });
      const invitation = await store.subscriptions.invite('ann@example.org', {
        again: false,
        compose: inviteCompose,
      });
      if (invitation.outcome !== 'invited') throw new Error(invitation.outcome);
      const [key, leave] = invitation.mail.message.text.split(' ');
      expect(await store.addressLinks.leaver(leave)).toEqual({
        ok: true,
        email: 'Ann@example.org',
      });
      expect(await store.addressLinks.check('leave', leave)).toEqual({
        ok: true,
        subscriptionActive: false,
      });
      expect(await store.addressLinks.check('confirm', leave)).toEqual({
        ok: false,
        refusal: 'invalid',
      });
      await store.subscriptions.activate('ann@example.org', key);
      expect(await store.addressLinks.check('leave', leave)).toEqual({
        ok: true,
        subscriptionActive: true,
      });
      // A leave link keeps working (an unsubscribe link in an old mail), until the address is
      // erased.
      time += 400 * 24 * HOUR;
      expect(await store.addressLinks.leaver(leave)).toEqual({
        ok: true,
        email: 'Ann@example.org',
      });
      await store.erase('ann@example.org');
      expect(await store.addressLinks.leaver(leave)).toEqual({ ok: false, refusal: 'invalid' });
    });

    /** A leave-link mail that remembers the token each message carried. */
    function leaveMail() {
      const tokens: string[] = [];
      const compose = (to: string, token: string): OutgoingMail => {
        tokens.push(token);
        return {
          from: 'no-reply@orgnote.example',
          to,
          subject: 'Leave',
          text: token,
          html: '',
          messageId: `<l${tokens.length}@x>`,
          date: iso(time),
        };
      };
      return { compose, tokens };
    }

    it('records a request for any address with one row, and mails a link only to an address on the list, at most three an hour', async () => {
      await store.signups.add({ email: 'ann@example.org', description: '' });
      const { compose, tokens } = leaveMail();
      await store.addressLinks.askLeaveLink('nobody@example.org');
      for (let i = 0; i < 5; i++) await store.addressLinks.askLeaveLink(' ANN@example.org');
      // Nothing looked up yet: a row per request, listed or not, and no mail.
      expect(await countRows(store, 'leave_requests')).toBe(6);
      expect(await store.mail.counts()).toMatchObject({ queued: 0 });

      const done = await store.addressLinks.mailLeaveLinks(10, compose);
      expect(done).toMatchObject({ requests: 6, queueFull: 0 });
      expect(done.mail.map((m) => m.message.to)).toEqual(Array(3).fill('ann@example.org'));
      // Answered requests are gone, the unlisted address's with them.
      expect(await countRows(store, 'leave_requests')).toBe(0);
      expect(await store.mail.counts()).toMatchObject({ queued: 3 });
      // Queued claimed for the round that wrote them.
      expect(await store.mail.claim(10)).toEqual([]);
      expect(await store.addressLinks.mailLeaveLinks(10, compose)).toEqual({
        mail: [],
        requests: 0,
        queueFull: 0,
      });

      time += HOUR + 1;
      await store.addressLinks.askLeaveLink('ann@example.org');
      expect((await store.addressLinks.mailLeaveLinks(10, compose)).mail).toHaveLength(1);
      expect(await store.addressLinks.leaver(tokens[0])).toEqual({
        ok: true,
        email: 'ann@example.org',
      });
    });

    it('keeps a request until a round answers it, on whichever store instance, and answers it once', async () => {
      const { compose } = leaveMail();
      const listed = Array.from({ length: 12 }, (_, i) => `on-${i}@example.org`);
      for (const email of listed) await store.signups.add({ email, description: '' });
      for (const [i, email] of listed.entries()) {
        await store.addressLinks.askLeaveLink(email);
        await store.addressLinks.askLeaveLink(`off-${i}@example.org`);
      }
      // The instance that took the requests is gone (a restart, a killed replica): two others
      // answer them, at the same time.
      await store.close();
      const [a, b] = [await besideStore(store, () => time), await besideStore(store, () => time)];
      try {
        const mailed: string[] = [];
        let answered = 0;
        const answer = (s: Store) => s.addressLinks.mailLeaveLinks(4, compose);
        for (let round = 0; round < 10; round++) {
          // At once on PostgreSQL; SQLite's one writer is one process's, so there they take turns.
          const done =
            engine.name === 'postgres'
              ? await Promise.all([a, b, a, b].map(answer))
              : [await answer(a), await answer(b)];
          answered += done.reduce((n, d) => n + d.requests, 0);
          mailed.push(...done.flatMap((d) => d.mail.map((m) => m.message.to)));
          if (done.every((d) => d.requests === 0)) break;
        }
        expect(answered).toBe(24);
        expect(mailed.sort()).toEqual([...listed].sort());
        expect(await countRows(a, 'leave_requests')).toBe(0);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });

    it("erases an address's waiting requests with it, and answers one without a mail when the queue is full", async () => {
      await store.close();
      store = await engine.open({ now: () => time, limits: { mailMaxItems: 2 } });
      const { compose, tokens } = leaveMail();
      await store.signups.add({ email: 'ann@example.org', description: '' });
      await store.signups.add({ email: 'bob@example.org', description: '' });
      await store.addressLinks.askLeaveLink('gone@example.org');
      await store.addressLinks.askLeaveLink('ann@example.org');
      // Not on the list, and still erased: an erasure leaves no request of the address behind.
      await store.erase('Gone@example.org');
      expect(await countRows(store, 'leave_requests')).toBe(1);
      await store.erase('ann@example.org');
      expect(await countRows(store, 'leave_requests')).toBe(0);

      // The requests are bounded as the mail queue is, for every address alike.
      await store.addressLinks.askLeaveLink('bob@example.org');
      await store.addressLinks.askLeaveLink('bob@example.org');
      await expect(store.addressLinks.askLeaveLink('nobody@example.org')).rejects.toBeInstanceOf(
        QueueFullError,
      );
      // One mail fills the queue: the second request is answered without one, and its token goes.
      await store.subscriptions.invite('bob@example.org', { again: false, compose: inviteCompose });
      const done = await store.addressLinks.mailLeaveLinks(10, compose);
      expect(done).toMatchObject({ requests: 2, queueFull: 1 });
      expect(done.mail).toHaveLength(1);
      expect(tokens).toHaveLength(2);
      expect(await store.addressLinks.leaver(tokens[1])).toEqual({ ok: false, refusal: 'invalid' });
      expect(await countRows(store, 'leave_requests')).toBe(0);
    });
  });

  describe('undeliverable', () => {
    it('marks the signup of a recipient refused for good, skips it in --next, invites it when named, and clears the mark on a new signup', async () => {
      await store.signups.add({ email: 'gone@example.org', description: '' });
      await store.signups.add({ email: 'fine@example.org', description: '' });
      const invitation = await store.subscriptions.invite('gone@example.org', {
        again: false,
        compose: inviteCompose,
      });
      if (invitation.outcome !== 'invited') throw new Error(invitation.outcome);
      await store.mail.failed(
        invitation.mail.id,
        '550-5.1.1 <gone@example.org>: Recipient address rejected',
        true,
      );
      expect(await store.subscriptions.stateOf('gone@example.org')).toBe('undeliverable');
      // The console says who refused it and the reply's code, never its text (it quotes the
      // address).
      const gone = (await store.signups.page({ q: 'gone', order: 'newest', limit: 1 }))[0];
      expect(gone).toMatchObject({ undeliverable_by: 'smtp', undeliverable_detail: '550 5.1.1' });
      expect(await store.signups.stats()).toMatchObject({
        undeliverable: 1,
        waitlisted: 1,
        invited: 0,
      });
      expect(await store.signups.oldestWaiting(10)).toEqual(['fine@example.org']);
      expect((await store.signups.list()).find((r) => r.email === 'gone@example.org')?.state).toBe(
        'undeliverable',
      );

      // A refusal of the message (not the recipient) marks nothing.
      const fine = await store.subscriptions.invite('fine@example.org', {
        again: false,
        compose: inviteCompose,
      });
      if (fine.outcome !== 'invited') throw new Error(fine.outcome);
      await store.mail.failed(fine.mail.id, '554 content refused');
      expect(await store.subscriptions.stateOf('fine@example.org')).toBe('invited');

      // A new signup of the address clears the mark; so does the operator naming it.
      await store.signups.add({ email: 'Gone@example.org', description: 'again' });
      expect(await store.subscriptions.stateOf('gone@example.org')).toBe('invited');
      const retried = await store.subscriptions.invite('gone@example.org', {
        again: true,
        compose: inviteCompose,
      });
      if (retried.outcome !== 'invited') throw new Error(retried.outcome);
      await store.mail.failed(retried.mail.id, '550 no such user', true);
      expect(
        (
          await store.subscriptions.invite('gone@example.org', {
            again: false,
            compose: inviteCompose,
          })
        ).outcome,
      ).toBe('invited');
      expect(await store.subscriptions.stateOf('gone@example.org')).toBe('invited');
    });
  });

  it('holds the waiting rows of invite --next to the same rows as the waitlisted state', async () => {
    const { mail, sent } = confirmations();
    await store.signups.add({ email: 'a@example.org', description: '' });
    await addConfirming({ email: 'b@example.org', description: '' }, mail);
    await addConfirming({ email: 'c@example.org', description: '' }, mail);
    await store.addressLinks.confirm(sent[1].tokens.confirm);
    await store.signups.add({ email: 'd@example.org', description: '' });
    const invited = await store.subscriptions.invite('d@example.org', {
      again: false,
      compose: inviteCompose,
    });
    if (invited.outcome === 'invited') await store.mail.failed(invited.mail.id, '550', true);
    await store.signups.add({ email: 'e@example.org', description: '' });
    await store.subscriptions.invite('e@example.org', { again: false, compose: inviteCompose });
    const waitlisted = (await store.signups.list())
      .filter((r) => r.state === 'waitlisted')
      .map((r) => r.email);
    expect((await store.signups.oldestWaiting(10)).sort()).toEqual(waitlisted.sort());
    expect(waitlisted.sort()).toEqual(['a@example.org', 'c@example.org']);
    expect(await store.signups.stats()).toEqual({
      total: 5,
      unconfirmed: 1,
      waitlisted: 2,
      invited: 1,
      activated: 0,
      undeliverable: 1,
    });
  });
}

describeEachEngine(contract);
