// The store contract (server/store/types.ts), run against both engines so their behaviour cannot
// drift: duplicates by normalised address, keys, activation, invitations, both queues, erasure,
// rate counters. Only the interface is used (no SQL, no `db`); time is the test's clock.
// UnknownEmailError is declared with the Subscriptions contract (subscriptions.ts): both engines
// must throw this same class, which the issueKey test holds them to.
import { UnknownEmailError } from '../../../server/store/subscriptions';
import { QueueFullError } from '../../../server/store/errors';
import type { OutgoingMail } from '../../../server/store/mail-queue';
import type { Store } from '../../../server/store/types';
import type { SignupRequest } from '../../../server/backend/client';
import { describeEachEngine, type OpenOptions, type StoreEngine } from '../../support/stores';

const START = Date.parse('2026-01-01T00:00:00.000Z');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Longer than either queue's lease; the contract names no length, only that a lease runs out. */
const PAST_ANY_LEASE = HOUR;

const iso = (ms: number) => new Date(ms).toISOString();

function contract(engine: StoreEngine) {
  let time: number;
  let store: Store;
  const now = () => time;
  const open = (options: Omit<OpenOptions, 'now'> = {}) => engine.open({ ...options, now });

  beforeEach(async () => {
    time = START;
    store = await open();
  });

  /** Signs these addresses up one second apart, in order. */
  async function signUp(...emails: string[]) {
    for (const email of emails) {
      await store.signups.add({ email, description: `note of ${email}` });
      time += 1_000;
    }
  }

  /** A compose for invite() that remembers the keys it was given and the messages it wrote. */
  function composer() {
    const keys: string[] = [];
    const messages: OutgoingMail[] = [];
    const compose = (to: string, key: string): OutgoingMail => {
      keys.push(key);
      const message = {
        from: 'OrgNote <invite@orgnote.example>',
        to,
        subject: 'Your OrgNote invitation',
        text: `Your key: ${key}`,
        html: `<p>Your key: ${key}</p>`,
        messageId: `<invite-${keys.length}@orgnote.example>`,
        date: iso(time),
      };
      messages.push(message);
      return message;
    };
    return { compose, keys, messages };
  }

  const request = (email: string, idempotencyKey = `idem-${email}`): SignupRequest => ({
    path: '/api/subscriptions',
    fields: [
      ['email', email],
      ['description', 'line one\r\nline two — ü'],
    ],
    forwarded: {
      'x-forwarded-for': '203.0.113.7',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'orgnote.example',
    },
    idempotencyKey,
  });

  describe('signups', () => {
    it('counts a repeat in another case or spacing as the same address, and keeps the first as typed', async () => {
      expect(await store.signups.add({ email: 'Zoe@Example.org', description: 'first' })).toBe(
        true,
      );
      expect(await store.signups.add({ email: '  zoe@EXAMPLE.org ', description: 'second' })).toBe(
        false,
      );
      expect(await store.signups.add({ email: 'zoe@example.org', description: 'third' })).toBe(
        false,
      );

      expect(await store.signups.count()).toBe(1);
      expect(await store.signups.list()).toEqual([
        {
          email: 'Zoe@Example.org',
          description: 'first',
          created_at: iso(START),
          invited_at: null,
          activated_at: null,
          confirmed_at: iso(START),
          state: 'waitlisted',
          language: 'en',
          // Where it came from: nothing was said.
          utm_source: null,
          utm_medium: null,
          utm_campaign: null,
          referrer: null,
        },
      ]);
    });

    // The handlers trim before (shared/form-checks.ts checkSignup); the store does not rely on it.
    it('stores an address given with spaces around it without them', async () => {
      expect(await store.signups.add({ email: '  Zoe@Example.org ', description: '' })).toBe(true);
      expect(await store.signups.add({ email: 'zoe@example.org', description: '' })).toBe(false);

      expect((await store.signups.list()).map((row) => row.email)).toEqual(['Zoe@Example.org']);
      expect(
        await store.subscriptions.invite('zoe@example.org', {
          again: false,
          compose: composer().compose,
        }),
      ).toMatchObject({
        email: 'Zoe@Example.org',
      });
    });

    it('lists newest first, from `since` (a date or a timestamp, inclusive) on, and streams the same rows in the same order', async () => {
      for (const [email, at] of [
        ['jan1@example.org', '2026-01-01T00:00:00.000Z'],
        ['jan3@example.org', '2026-01-03T00:00:00.000Z'],
        ['jan5@example.org', '2026-01-05T00:00:00.000Z'],
      ]) {
        time = Date.parse(at);
        await store.signups.add({ email, description: '' });
      }
      const streamed = async (since?: string) => {
        const rows = [];
        for await (const row of store.signups.stream(since)) rows.push(row);
        return rows;
      };

      const all = await store.signups.list();
      expect(all.map((row) => [row.email, row.created_at])).toEqual([
        ['jan5@example.org', '2026-01-05T00:00:00.000Z'],
        ['jan3@example.org', '2026-01-03T00:00:00.000Z'],
        ['jan1@example.org', '2026-01-01T00:00:00.000Z'],
      ]);
      expect((await store.signups.list('2026-01-02')).map((row) => row.email)).toEqual([
        'jan5@example.org',
        'jan3@example.org',
      ]);
      expect(
        (await store.signups.list('2026-01-03T00:00:00.000Z')).map((row) => row.email),
      ).toEqual(['jan5@example.org', 'jan3@example.org']);
      expect(await store.signups.list('2026-02-01')).toEqual([]);
      expect(await streamed()).toEqual(all);
      expect(await streamed('2026-01-02')).toEqual(await store.signups.list('2026-01-02'));
    });

    // The contract says "an ISO date or timestamp": an instant, whatever its spelling.
    it('reads `since` as an instant, whichever ISO 8601 form it is written in', async () => {
      for (const [email, at] of [
        ['jan1@example.org', '2026-01-01T00:00:00.000Z'],
        ['jan3@example.org', '2026-01-03T00:00:00.000Z'],
      ]) {
        time = Date.parse(at);
        await store.signups.add({ email, description: '' });
      }

      expect((await store.signups.list('2026-01-03T00:00:00Z')).map((row) => row.email)).toEqual([
        'jan3@example.org',
      ]);
      expect(
        (await store.signups.list('2026-01-03T01:00:00+01:00')).map((row) => row.email),
      ).toEqual(['jan3@example.org']);
      expect(
        (await store.signups.list('2026-01-02T23:00:00-01:00')).map((row) => row.email),
      ).toEqual(['jan3@example.org']);
    });

    it('gives the oldest waiting addresses and totals by state, each signup in exactly one state', async () => {
      await signUp(
        'waiting1@example.org',
        'invited@example.org',
        'activated@example.org',
        'waiting2@example.org',
        'waiting3@example.org',
      );
      await store.subscriptions.invite('invited@example.org', {
        again: false,
        compose: composer().compose,
      });
      const key = await store.subscriptions.issueKey('activated@example.org');
      await store.subscriptions.activate('activated@example.org', key);

      expect(await store.signups.oldestWaiting(10)).toEqual([
        'waiting1@example.org',
        'waiting2@example.org',
        'waiting3@example.org',
      ]);
      expect(await store.signups.oldestWaiting(2)).toEqual([
        'waiting1@example.org',
        'waiting2@example.org',
      ]);
      expect(await store.signups.stats()).toEqual({
        total: 5,
        waitlisted: 3,
        invited: 1,
        activated: 1,
        unconfirmed: 0,
        undeliverable: 0,
      });
      const byEmail = Object.fromEntries(
        (await store.signups.list()).map((row) => [row.email, row]),
      );
      expect(byEmail['invited@example.org']).toMatchObject({
        invited_at: expect.any(String),
        activated_at: null,
      });
      expect(byEmail['activated@example.org']).toMatchObject({
        invited_at: expect.any(String),
        activated_at: expect.any(String),
      });
    });
  });

  describe('subscriptions', () => {
    it('issues keys only to addresses on the waitlist', async () => {
      const issued = store.subscriptions.issueKey('  nobody@example.org ');
      await expect(issued).rejects.toThrow('nobody@example.org is not on the waitlist');
      await expect(issued).rejects.toBeInstanceOf(UnknownEmailError);
    });

    it('issues keys of at least 128 random bits in base64url, never the same twice', async () => {
      await signUp('ann@example.org');
      const first = await store.subscriptions.issueKey('ann@example.org');
      const second = await store.subscriptions.issueKey('ANN@example.org');

      // 22 base64url characters carry 132 bits.
      expect(first).toMatch(/^[A-Za-z0-9_-]{22,}$/);
      expect(second).toMatch(/^[A-Za-z0-9_-]{22,}$/);
      expect(second).not.toBe(first);
    });

    it('activates with a key only the address it was issued for', async () => {
      await signUp('Ann@Example.org', 'bob@example.org');
      const key = await store.subscriptions.issueKey('ann@example.org');

      expect(await store.subscriptions.activate('bob@example.org', key)).toEqual({
        outcome: 'invalid',
      });
      expect(await store.subscriptions.activate('nobody@example.org', key)).toEqual({
        outcome: 'invalid',
      });
      expect(await store.subscriptions.activate('ann@example.org', `${key}x`)).toEqual({
        outcome: 'invalid',
      });
      expect(await store.subscriptions.activate('ann@example.org', 'A'.repeat(32))).toEqual({
        outcome: 'invalid',
      });
      expect(await store.subscriptions.stateOf('bob@example.org')).toBe('waitlisted');
      expect(await store.subscriptions.stateOf('ann@example.org')).toBe('invited');

      expect(await store.subscriptions.activate('  ANN@example.org ', key)).toEqual({
        outcome: 'active',
        email: 'Ann@Example.org',
      });
      expect(await store.subscriptions.stateOf('ann@example.org')).toBe('activated');
    });

    it('binds a subscription to one account, and an account to one subscription', async () => {
      await signUp('ann@example.org', 'bob@example.org');
      const ann = await store.subscriptions.issueKey('ann@example.org');
      const bob = await store.subscriptions.issueKey('bob@example.org');
      const github = { provider: 'github', id: '1001', email: 'ann@users.example' };

      expect(await store.subscriptions.activate('ann@example.org', ann, github)).toEqual({
        outcome: 'active',
        email: 'ann@example.org',
      });
      expect(await store.subscriptions.activate('ann@example.org', ann, github)).toEqual({
        outcome: 'active',
        email: 'ann@example.org',
      });
      expect(await store.subscriptions.activate('ann@example.org', ann)).toEqual({
        outcome: 'active',
        email: 'ann@example.org',
      });
      expect(
        await store.subscriptions.activate('ann@example.org', ann, {
          provider: 'github',
          id: '2002',
        }),
      ).toEqual({ outcome: 'bound-elsewhere' });
      expect(
        await store.subscriptions.activate('ann@example.org', ann, {
          provider: 'gitlab',
          id: '1001',
        }),
      ).toEqual({ outcome: 'bound-elsewhere' });
      expect(
        await store.subscriptions.activate('bob@example.org', bob, {
          provider: 'github',
          id: '1001',
        }),
      ).toEqual({ outcome: 'account-has-one' });
      expect(await store.subscriptions.stateOf('bob@example.org')).toBe('invited');

      expect(await store.subscriptions.ofAccount('github', '1001')).toEqual({
        email: 'ann@example.org',
      });
      expect(await store.subscriptions.ofAccount('gitlab', '1001')).toBeUndefined();
      expect(await store.subscriptions.ofAccount('github', '2002')).toBeUndefined();
    });

    it('records the activation once: a repeat later keeps the first time', async () => {
      await signUp('ann@example.org');
      const key = await store.subscriptions.issueKey('ann@example.org');
      await store.subscriptions.activate('ann@example.org', key);
      const first = iso(time);
      time += DAY;
      await store.subscriptions.activate('ann@example.org', key);

      expect((await store.signups.list())[0].activated_at).toBe(first);
      expect(await store.signups.stats()).toEqual({
        total: 1,
        waitlisted: 0,
        invited: 0,
        activated: 1,
        unconfirmed: 0,
        undeliverable: 0,
      });
    });

    it('tells where an address stands, in any case or spacing', async () => {
      await signUp('Ann@Example.org');
      expect(await store.subscriptions.stateOf('nobody@example.org')).toBeUndefined();
      expect(await store.subscriptions.stateOf(' ann@example.ORG ')).toBe('waitlisted');
      const key = await store.subscriptions.issueKey('ann@example.org');
      expect(await store.subscriptions.stateOf('ann@example.org')).toBe('invited');
      await store.subscriptions.activate('ann@example.org', key);
      expect(await store.subscriptions.stateOf('ann@example.org')).toBe('activated');
    });
  });

  describe('invitations', () => {
    it('invites with a new key in a mail already claimed for the caller', async () => {
      await signUp('Ann@Example.org');
      const { compose, keys, messages } = composer();
      const invitation = await store.subscriptions.invite('ann@example.org', {
        again: false,
        compose,
      });

      expect(keys).toHaveLength(1);
      expect(messages.map((message) => message.to)).toEqual(['Ann@Example.org']);
      expect(invitation).toEqual({
        outcome: 'invited',
        email: 'Ann@Example.org',
        mail: { id: expect.any(Number), message: messages[0], attempts: 0 },
      });
      if (invitation.outcome !== 'invited') throw new Error(invitation.outcome);
      expect(await store.subscriptions.stateOf('ann@example.org')).toBe('invited');
      expect(await store.mail.claim(10)).toEqual([]);
      time += 1_000;
      expect(await store.mail.claim(10)).toEqual([]);
      time += PAST_ANY_LEASE;
      expect(await store.mail.claim(10)).toEqual([invitation.mail]);
      expect(await store.subscriptions.activate('ann@example.org', keys[0])).toEqual({
        outcome: 'active',
        email: 'Ann@Example.org',
      });
    });

    it('skips an address already invited, by mail or by issue-key, or activated, unless again', async () => {
      await signUp('mailed@example.org', 'issued@example.org', 'active@example.org');
      const { compose, keys } = composer();
      await store.subscriptions.invite('mailed@example.org', { again: false, compose });
      await store.subscriptions.issueKey('issued@example.org');
      await store.subscriptions.activate(
        'active@example.org',
        await store.subscriptions.issueKey('active@example.org'),
      );

      for (const email of ['mailed@example.org', 'Issued@example.org', 'active@example.org']) {
        expect(await store.subscriptions.invite(email, { again: false, compose })).toEqual({
          outcome: 'skipped',
          email: email.toLowerCase(),
        });
      }
      expect(keys).toHaveLength(1);
      expect(await store.mail.counts()).toEqual({ queued: 1, sent: 0, failed: 0, dead: 0 });
    });

    it('again: revokes the earlier key and drops the earlier mail still waiting', async () => {
      await signUp('ann@example.org');
      const { compose, keys } = composer();
      const first = await store.subscriptions.invite('ann@example.org', { again: false, compose });
      if (first.outcome !== 'invited') throw new Error(first.outcome);
      await store.mail.release(first.mail.id);
      time += MINUTE;
      const second = await store.subscriptions.invite('ann@example.org', { again: true, compose });
      if (second.outcome !== 'invited') throw new Error(second.outcome);

      expect(keys).toHaveLength(2);
      expect(keys[1]).not.toBe(keys[0]);
      expect((await store.mail.pending()).map((mail) => mail.id)).toEqual([second.mail.id]);
      expect(await store.mail.counts()).toEqual({ queued: 1, sent: 0, failed: 0, dead: 0 });
      expect(await store.subscriptions.activate('ann@example.org', keys[0])).toEqual({
        outcome: 'invalid',
      });
      expect(await store.subscriptions.activate('ann@example.org', keys[1])).toEqual({
        outcome: 'active',
        email: 'ann@example.org',
      });
    });

    it('again: keeps an earlier mail a sender holds (it is on its way), its key revoked all the same', async () => {
      await signUp('ann@example.org');
      const { compose, keys } = composer();
      const first = await store.subscriptions.invite('ann@example.org', { again: false, compose });
      const second = await store.subscriptions.invite('ann@example.org', { again: true, compose });
      if (first.outcome !== 'invited' || second.outcome !== 'invited')
        throw new Error('not invited');

      expect((await store.mail.pending()).map((mail) => mail.id)).toEqual([
        first.mail.id,
        second.mail.id,
      ]);
      expect(await store.subscriptions.activate('ann@example.org', keys[0])).toEqual({
        outcome: 'invalid',
      });
    });

    it('does not invite an address that is not on the waitlist', async () => {
      const { compose, keys } = composer();
      expect(
        await store.subscriptions.invite('  nobody@example.org ', { again: true, compose }),
      ).toEqual({
        outcome: 'not-on-waitlist',
        email: 'nobody@example.org',
      });
      expect(keys).toEqual([]);
      expect(await store.mail.counts()).toEqual({ queued: 0, sent: 0, failed: 0, dead: 0 });
    });
  });

  describe('outbox', () => {
    it('holds an item until delivered, one claim at a time, due again after a failure', async () => {
      const id = await store.outbox.enqueue(request('ann@example.org'));
      expect(await store.outbox.depth()).toBe(1);
      expect(await store.outbox.all()).toEqual([
        {
          id,
          request: request('ann@example.org'),
          attempts: 0,
          nextAttemptAt: expect.any(Number),
          lastError: null,
          createdAt: iso(START),
          state: 'pending',
        },
      ]);

      const due = (await store.outbox.nextDueAt())!;
      expect(due).toBeGreaterThanOrEqual(START);
      time = due;
      const [item, ...more] = await store.outbox.claim(10);
      expect(more).toEqual([]);
      expect(item).toMatchObject({ id, request: request('ann@example.org'), attempts: 0 });
      expect(await store.outbox.claim(10)).toEqual([]);
      time += 1_000;
      expect(await store.outbox.claim(10)).toEqual([]);

      await store.outbox.failed(item, 'backend answered 503');
      const again = (await store.outbox.nextDueAt())!;
      expect(again).toBeGreaterThan(time);
      expect(await store.outbox.all()).toMatchObject([
        {
          id,
          attempts: 1,
          lastError: 'backend answered 503',
          nextAttemptAt: again,
          state: 'pending',
        },
      ]);
      expect(await store.outbox.depth()).toBe(1);
      time = again - 1;
      expect(await store.outbox.claim(10)).toEqual([]);
      time = again;
      const [retried] = await store.outbox.claim(10);
      expect(retried).toMatchObject({ id, attempts: 1 });

      await store.outbox.delivered(id);
      expect(await store.outbox.depth()).toBe(0);
      expect(await store.outbox.all()).toEqual([]);
      expect(await store.outbox.nextDueAt()).toBeUndefined();
    });

    it('claims at most `limit` items, oldest first, and gives each to one claim only', async () => {
      const ids = [];
      for (const email of ['a@example.org', 'b@example.org', 'c@example.org'])
        ids.push(await store.outbox.enqueue(request(email)));
      time += PAST_ANY_LEASE;

      expect((await store.outbox.claim(2)).map((item) => item.id)).toEqual(ids.slice(0, 2));
      expect((await store.outbox.claim(2)).map((item) => item.id)).toEqual(ids.slice(2));
      expect(await store.outbox.claim(2)).toEqual([]);
    });

    it('refuses an item past its size, and keeps the ones it holds', async () => {
      store = await open({ limits: { outboxMaxItems: 2 } });
      await store.outbox.enqueue(request('a@example.org'));
      await store.outbox.enqueue(request('b@example.org'));

      const third = store.outbox.enqueue(request('c@example.org'));
      await expect(third).rejects.toBeInstanceOf(QueueFullError);
      await expect(third).rejects.toMatchObject({
        queue: 'outbox',
        retryAfterSeconds: expect.any(Number),
      });
      expect(await store.outbox.depth()).toBe(2);
      expect((await store.outbox.all()).map((item) => item.request.fields[0][1])).toEqual([
        'a@example.org',
        'b@example.org',
      ]);
    });

    it('sets an item failing past the maximum age aside as dead, until retried', async () => {
      store = await open({ limits: { maxAgeMs: 10 * MINUTE } });
      const young = await store.outbox.enqueue(request('young@example.org'));
      time += 5 * MINUTE;
      const [item] = await store.outbox.claim(1);
      await store.outbox.failed(item, 'timeout');
      expect(await store.outbox.all()).toMatchObject([{ id: young, state: 'pending' }]);

      time += PAST_ANY_LEASE;
      const [old] = await store.outbox.claim(1);
      await store.outbox.failed(old, 'timeout');
      expect(await store.outbox.all()).toMatchObject([
        { id: young, state: 'dead', attempts: 2, lastError: 'timeout' },
      ]);
      expect(await store.outbox.depth()).toBe(0);
      expect(await store.outbox.deadCount()).toBe(1);
      expect(await store.outbox.nextDueAt()).toBeUndefined();
      time += DAY;
      expect(await store.outbox.claim(10)).toEqual([]);

      expect(await store.outbox.retry(young)).toBe(true);
      expect(await store.outbox.all()).toMatchObject([{ id: young, state: 'pending' }]);
      expect(await store.outbox.depth()).toBe(1);
      expect(await store.outbox.deadCount()).toBe(0);
      expect(await store.outbox.nextDueAt()).toBeLessThanOrEqual(time);
      expect((await store.outbox.claim(10)).map((claimed) => claimed.id)).toEqual([young]);
      expect(await store.outbox.retry(young)).toBe(false);
      expect(await store.outbox.retry(young + 1000)).toBe(false);
    });
  });

  describe('mail', () => {
    /**
     * Invites `email` and lets the invitation's own claim run out, so the mail is anyone's to send.
     */
    async function invited(email: string) {
      await signUp(email);
      const { compose, keys } = composer();
      const invitation = await store.subscriptions.invite(email, { again: false, compose });
      if (invitation.outcome !== 'invited') throw new Error(invitation.outcome);
      const invitedAt = iso(time);
      time += PAST_ANY_LEASE;
      return { ...invitation.mail, key: keys[0], invitedAt };
    }

    it('sends a message once: sent only while it is queued', async () => {
      const mail = await invited('ann@example.org');
      expect(await store.mail.claim(10)).toEqual([
        { id: mail.id, message: mail.message, attempts: 0 },
      ]);
      expect(await store.mail.claim(10)).toEqual([]);

      expect(await store.mail.sent(mail.id)).toBe(true);
      expect(await store.mail.sent(mail.id)).toBe(false);
      expect(await store.mail.counts()).toEqual({ queued: 0, sent: 1, failed: 0, dead: 0 });
      expect(await store.mail.pending()).toEqual([]);
      time += PAST_ANY_LEASE;
      expect(await store.mail.claim(10)).toEqual([]);
    });

    it('records a refusal for good, never to be sent again', async () => {
      const mail = await invited('ann@example.org');
      await store.mail.claim(10);
      await store.mail.failed(mail.id, '550 no such user');

      expect(await store.mail.counts()).toEqual({ queued: 0, sent: 0, failed: 1, dead: 0 });
      expect(await store.mail.pending()).toMatchObject([
        { id: mail.id, state: 'failed', attempts: 1, lastError: '550 no such user' },
      ]);
      expect(await store.mail.sent(mail.id)).toBe(false);
      time += DAY;
      expect(await store.mail.claim(10)).toEqual([]);
    });

    it('retries a temporary failure after the backoff it returns', async () => {
      const mail = await invited('ann@example.org');
      const [claimed] = await store.mail.claim(10);
      const due = await store.mail.retry(claimed, '421 try again later');

      expect(due).toBeGreaterThan(time);
      expect(await store.mail.pending()).toMatchObject([
        {
          id: mail.id,
          state: 'queued',
          attempts: 1,
          nextAttemptAt: due,
          lastError: '421 try again later',
        },
      ]);
      time = due - 1;
      expect(await store.mail.claim(10)).toEqual([]);
      time = due;
      expect(await store.mail.claim(10)).toEqual([
        { id: mail.id, message: mail.message, attempts: 1 },
      ]);
    });

    it('takes back a message released unsent, without counting an attempt, well before its claim would run out', async () => {
      const mail = await invited('ann@example.org');
      await store.mail.claim(10);
      await store.mail.release(mail.id);

      expect(await store.mail.pending()).toMatchObject([
        { id: mail.id, state: 'queued', attempts: 0 },
      ]);
      time += MINUTE;
      expect(await store.mail.claim(10)).toEqual([
        { id: mail.id, message: mail.message, attempts: 0 },
      ]);
    });

    it('sets a message failing past the maximum age aside as dead, until requeued', async () => {
      store = await open({ limits: { maxAgeMs: 10 * MINUTE } });
      const mail = await invited('ann@example.org');
      const [claimed] = await store.mail.claim(10);
      await store.mail.retry(claimed, '421 try again later');

      expect(await store.mail.pending()).toMatchObject([
        { id: mail.id, state: 'dead', attempts: 1 },
      ]);
      expect(await store.mail.counts()).toEqual({ queued: 0, sent: 0, failed: 0, dead: 1 });
      time += DAY;
      expect(await store.mail.claim(10)).toEqual([]);

      expect(await store.mail.requeue(mail.id)).toBe(true);
      expect(await store.mail.requeue(mail.id)).toBe(false);
      expect(await store.mail.requeue(mail.id + 1000)).toBe(false);
      expect(await store.mail.claim(10)).toEqual([
        { id: mail.id, message: mail.message, attempts: 1 },
      ]);
      expect(await store.mail.sent(mail.id)).toBe(true);
      expect(await store.subscriptions.activate('ann@example.org', mail.key)).toEqual({
        outcome: 'active',
        email: 'ann@example.org',
      });
    });

    it('lists what is waiting by address, never with its body or key', async () => {
      const sent = await invited('sent@example.org');
      const waiting = await invited('Waiting@Example.org');
      await store.mail.claim(1);
      await store.mail.sent(sent.id);

      const pending = await store.mail.pending();
      expect(pending).toEqual([
        {
          id: waiting.id,
          to: 'Waiting@Example.org',
          state: 'queued',
          attempts: 0,
          nextAttemptAt: expect.any(Number),
          lastError: null,
          createdAt: waiting.invitedAt,
        },
      ]);
      expect(JSON.stringify(pending)).not.toContain(waiting.key);
      expect(JSON.stringify(pending)).not.toContain(waiting.message.subject);
    });

    it('refuses an invitation past its size and keeps nothing of it', async () => {
      store = await open({ limits: { mailMaxItems: 1 } });
      await signUp('ann@example.org', 'bob@example.org', 'cid@example.org');
      const { compose, keys } = composer();
      const ann = await store.subscriptions.invite('ann@example.org', { again: false, compose });

      const bob = store.subscriptions.invite('bob@example.org', { again: false, compose });
      await expect(bob).rejects.toBeInstanceOf(QueueFullError);
      await expect(bob).rejects.toMatchObject({ queue: 'mail' });
      expect(await store.subscriptions.stateOf('bob@example.org')).toBe('waitlisted');
      expect(await store.signups.oldestWaiting(10)).toEqual(['bob@example.org', 'cid@example.org']);
      expect(await store.signups.stats()).toEqual({
        total: 3,
        waitlisted: 2,
        invited: 1,
        activated: 0,
        unconfirmed: 0,
        undeliverable: 0,
      });
      expect(await store.mail.counts()).toEqual({ queued: 1, sent: 0, failed: 0, dead: 0 });
      expect((await store.mail.pending()).map((mail) => mail.to)).toEqual(['ann@example.org']);
      // Whatever key compose was handed for bob was never stored.
      for (const key of keys.slice(1))
        expect(await store.subscriptions.activate('bob@example.org', key)).toEqual({
          outcome: 'invalid',
        });

      // Only mail still waiting counts: once ann's is sent, there is room again.
      if (ann.outcome !== 'invited') throw new Error(ann.outcome);
      await store.mail.sent(ann.mail.id);
      expect(
        await store.subscriptions.invite('bob@example.org', { again: false, compose }),
      ).toMatchObject({ outcome: 'invited' });
    });
  });

  describe('erase', () => {
    it('removes everything kept about an address, in any case or spacing, and says what', async () => {
      await signUp('X@example.org', 'other@example.org');
      const early = await store.subscriptions.issueKey('x@example.org');
      const { compose, keys } = composer();
      const invitation = await store.subscriptions.invite('x@example.org', {
        again: true,
        compose,
      });
      if (invitation.outcome !== 'invited') throw new Error(invitation.outcome);
      await store.subscriptions.invite('other@example.org', { again: false, compose });
      await store.outbox.enqueue({ ...request('x'), fields: [['email', 'X@example.org']] });
      const kept = await store.outbox.enqueue(request('other@example.org'));

      expect(await store.mail.exists(invitation.mail.id)).toBe(true);
      expect(await store.erase('  x@EXAMPLE.org ')).toEqual({
        signup: true,
        keys: 2,
        mailIds: [invitation.mail.id],
        outbox: 1,
      });
      // A sender still at work on that mail learns it is gone (server/mail/send.ts).
      expect(await store.mail.exists(invitation.mail.id)).toBe(false);
      expect(await store.signups.list()).toMatchObject([{ email: 'other@example.org' }]);
      expect(await store.subscriptions.stateOf('x@example.org')).toBeUndefined();
      expect(await store.subscriptions.activate('x@example.org', early)).toEqual({
        outcome: 'invalid',
      });
      expect(await store.subscriptions.activate('x@example.org', keys[0])).toEqual({
        outcome: 'invalid',
      });
      expect((await store.mail.pending()).map((mail) => mail.to)).toEqual(['other@example.org']);
      expect((await store.outbox.all()).map((item) => item.id)).toEqual([kept]);

      expect(await store.signups.add({ email: 'x@example.org', description: 'back' })).toBe(true);
    });

    it('reports nothing removed for an unknown address', async () => {
      expect(await store.erase('nobody@example.org')).toEqual({
        signup: false,
        keys: 0,
        mailIds: [],
        outbox: 0,
      });
    });
  });

  describe('rate', () => {
    it('counts hits per key in fixed windows, from zero in the next one', async () => {
      time = START + 30_000;
      const windowEnd = START + MINUTE;
      expect(await store.rate.hit('203.0.113.7', MINUTE)).toEqual({ count: 1, resetAt: windowEnd });
      time += 10_000;
      expect(await store.rate.hit('203.0.113.7', MINUTE)).toEqual({ count: 2, resetAt: windowEnd });
      expect(await store.rate.hit('198.51.100.1', MINUTE)).toEqual({
        count: 1,
        resetAt: windowEnd,
      });
      expect(await store.rate.hit('203.0.113.7', MINUTE)).toEqual({ count: 3, resetAt: windowEnd });

      time = windowEnd;
      expect(await store.rate.hit('203.0.113.7', MINUTE)).toEqual({
        count: 1,
        resetAt: windowEnd + MINUTE,
      });
      expect(await store.rate.hit('198.51.100.1', MINUTE)).toEqual({
        count: 1,
        resetAt: windowEnd + MINUTE,
      });
    });
  });

  describe('transactions', () => {
    it('runs many at once one after another, none failing for another under way', async () => {
      const emails = Array.from({ length: 20 }, (_, i) => `key${i}@example.org`);
      for (const email of emails) await store.signups.add({ email, description: '' });
      // Each issueKey is a transaction; with reads outside transactions in between.
      const keys = await Promise.all(
        emails.flatMap((email) => [
          store.subscriptions.issueKey(email),
          store.signups.count().then(String),
        ]),
      );
      expect(keys.filter((_, i) => i % 2 === 0).every((key) => /^[\w-]{32}$/.test(key))).toBe(true);
      expect(await store.signups.stats()).toMatchObject({ invited: 20 });
    });
  });

  describe('lifetime', () => {
    it('answers ping while open, and refuses once closed', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
      await store.close();
      await expect(store.ping()).rejects.toThrow();
    });
  });
}

describeEachEngine(contract);
