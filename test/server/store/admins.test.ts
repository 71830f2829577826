// The store contract for the console, on both engines: accounts by normalised address,
// a password or second-factor change ending the account's sessions, a TOTP step accepted once
// even by two replicas at once, sessions ending when idle or too old, and an audit log read
// newest first with keyset pages, whose client addresses go after 90 days. Time is the test's
// clock.
import { REMEMBERED_MS } from '../../../server/store/login-throttle';
import type { Store } from '../../../server/store/types';
import {
  besideStore,
  composeInvitation,
  describeEachEngine,
  type StoreEngine,
} from '../../support/stores';

const START = Date.parse('2026-04-01T08:00:00.000Z');
const MINUTE = 60_000;
const LIMITS = { idleMs: 30 * MINUTE, maxMs: 12 * 60 * MINUTE };

function contract(engine: StoreEngine) {
  let time: number;
  let store: Store;
  beforeEach(async () => {
    time = START;
    store = await engine.open({ now: () => time });
  });

  describe('accounts', () => {
    it('adds an account once per address, lists it, and says whether two-factor is enrolled', async () => {
      expect(await store.admins.count()).toBe(0);
      expect(await store.admins.add('Ops@Example.org', 'hash-1')).toBe(true);
      expect(await store.admins.add(' ops@example.ORG ', 'hash-2')).toBe(false);
      expect(await store.admins.setTotp('ops@example.org', 'SECRETBASE32')).toBe(true);
      expect(await store.admins.list()).toEqual([
        { email: 'Ops@Example.org', createdAt: new Date(START).toISOString(), totp: true },
      ]);
      expect(await store.admins.credentials('OPS@example.org')).toEqual({
        email: 'Ops@Example.org',
        passwordHash: 'hash-1',
        totpSecret: 'SECRETBASE32',
        deviceGeneration: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      });
      expect(await store.admins.credentials('nobody@example.org')).toBeUndefined();
      expect(await store.admins.setTotp('nobody@example.org', 'X')).toBe(false);
    });

    it('ends every session of an account whose password changes, or that is removed', async () => {
      await store.admins.add('ops@example.org', 'old');
      await store.admins.add('other@example.org', 'h');
      await store.sessions.start('ops@example.org', 'session-a');
      await store.sessions.start('other@example.org', 'session-b');
      expect(await store.admins.setPassword('ops@example.org', 'new')).toBe(true);
      expect(await store.sessions.touch('session-a', LIMITS)).toBeUndefined();
      expect(await store.sessions.touch('session-b', LIMITS)).toEqual({
        email: 'other@example.org',
      });
      expect((await store.admins.credentials('ops@example.org'))?.passwordHash).toBe('new');
      expect(await store.admins.remove('other@example.org')).toBe(true);
      expect(await store.sessions.touch('session-b', LIMITS)).toBeUndefined();
      expect(await store.admins.remove('other@example.org')).toBe(false);
      expect(await store.admins.setPassword('other@example.org', 'x')).toBe(false);
    });
  });

  describe('two-factor', () => {
    it('accepts a time step once, and never one older than the last accepted', async () => {
      await store.admins.add('ops@example.org', 'h');
      await store.admins.setTotp('ops@example.org', 'SECRETBASE32');
      const step = Math.floor(START / 30_000);
      expect(await store.admins.acceptTotpStep('OPS@example.org', step)).toBe(true);
      expect(await store.admins.acceptTotpStep('ops@example.org', step)).toBe(false);
      expect(await store.admins.acceptTotpStep('ops@example.org', step - 1)).toBe(false);
      expect(await store.admins.acceptTotpStep('ops@example.org', step + 1)).toBe(true);
      expect(await store.admins.acceptTotpStep('nobody@example.org', step + 5)).toBe(false);
      // A new secret starts with no step accepted; an account without one has none to accept.
      await store.admins.setTotp('ops@example.org', 'ANOTHERSECRET');
      expect(await store.admins.acceptTotpStep('ops@example.org', step)).toBe(true);
      await store.admins.setTotp('ops@example.org', null);
      expect(await store.admins.acceptTotpStep('ops@example.org', step + 9)).toBe(false);
    });

    it('lets one of many concurrent claims of a step win, from two replicas', async () => {
      await store.admins.add('ops@example.org', 'h');
      await store.admins.setTotp('ops@example.org', 'SECRETBASE32');
      const replica = await besideStore(store, () => time);
      try {
        const step = Math.floor(START / 30_000);
        const claims = await Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            (i % 2 ? replica : store).admins.acceptTotpStep('ops@example.org', step),
          ),
        );
        expect(claims.filter(Boolean)).toHaveLength(1);
      } finally {
        await replica.close();
      }
    });

    it('ends every session of the account when two-factor is enrolled or dropped', async () => {
      await store.admins.add('ops@example.org', 'h');
      await store.admins.add('other@example.org', 'h');
      await store.sessions.start('ops@example.org', 'before-enrolment');
      await store.sessions.start('other@example.org', 'other');
      expect(await store.admins.setTotp('ops@example.org', 'SECRETBASE32')).toBe(true);
      expect(await store.sessions.touch('before-enrolment', LIMITS)).toBeUndefined();
      await store.sessions.start('ops@example.org', 'with-code');
      expect(await store.admins.setTotp('ops@example.org', null)).toBe(true);
      expect(await store.sessions.touch('with-code', LIMITS)).toBeUndefined();
      expect(await store.sessions.touch('other', LIMITS)).toEqual({ email: 'other@example.org' });
    });
  });

  describe('sessions', () => {
    it('keeps a session alive while used, ends it after 30 minutes idle, and after 12 hours whatever its use', async () => {
      await store.admins.add('ops@example.org', 'h');
      await store.sessions.start('ops@example.org', 'idle');
      await store.sessions.start('ops@example.org', 'busy');
      // Used every 29 minutes for almost 12 hours: alive all along.
      while (time + 29 * MINUTE < START + LIMITS.maxMs) {
        time += 29 * MINUTE;
        expect(await store.sessions.touch('busy', LIMITS)).toEqual({ email: 'ops@example.org' });
      }
      expect(await store.sessions.touch('idle', LIMITS)).toBeUndefined();
      time = START + LIMITS.maxMs;
      expect(await store.sessions.touch('busy', LIMITS)).toBeUndefined();
      // Gone for good: going back in time does not bring it back.
      time = START + MINUTE;
      expect(await store.sessions.touch('busy', LIMITS)).toBeUndefined();
    });

    it('ends a session at logout, and knows no session it never started', async () => {
      await store.admins.add('ops@example.org', 'h');
      await store.sessions.start('ops@example.org', 's');
      await store.sessions.end('s');
      expect(await store.sessions.touch('s', LIMITS)).toBeUndefined();
      expect(await store.sessions.touch('never', LIMITS)).toBeUndefined();
    });
  });

  describe('daily counts for the chart', () => {
    it('counts signups, invitations and activations per UTC day from a day on', async () => {
      await store.signups.add({ email: 'old@example.org', description: '' });
      time = Date.parse('2026-04-03T23:59:00.000Z');
      await store.signups.add({ email: 'a@example.org', description: '' });
      await store.signups.add({ email: 'b@example.org', description: '' });
      time = Date.parse('2026-04-04T00:01:00.000Z');
      const invited = await store.subscriptions.invite('a@example.org', {
        again: false,
        compose: composeInvitation,
      });
      if (invited.outcome === 'invited')
        await store.subscriptions.activate('a@example.org', invited.mail.message.text);
      expect(await store.signups.daily('2026-04-02')).toEqual([
        { day: '2026-04-03', signups: 2, invited: 0, activated: 0 },
        { day: '2026-04-04', signups: 0, invited: 1, activated: 1 },
      ]);
    });
  });

  describe('login throttle', () => {
    const WINDOW = 15 * MINUTE;
    const THROTTLE = { windowMs: WINDOW, limit: 5 };
    const attempt = (...keys: string[]) => store.loginThrottle.attempt(keys, THROTTLE);
    const allowed = async (...keys: string[]) => (await attempt(...keys)).allowed;

    it('counts attempts per key, refuses at the limit of any key, and takes back a success', async () => {
      time = START + MINUTE;
      for (let i = 0; i < 4; i++) expect(await allowed('account:a', 'ip:1')).toBe(true);
      expect(await allowed('account:b', 'ip:1')).toBe(true);
      // ip:1 has its five: refused, whatever the account, until the window ends.
      expect(await attempt('account:c', 'ip:1')).toEqual({
        allowed: false,
        retryAfterMs: WINDOW - MINUTE + 1,
        window: START,
        remembered: false,
      });
      expect(await allowed('account:a', 'ip:2')).toBe(true);
      expect(await allowed('account:a', 'ip:3')).toBe(false);
      await store.loginThrottle.succeeded(['account:a', 'ip:2'], WINDOW);
      expect(await allowed('account:a', 'ip:3')).toBe(true);
    });

    it('does not count a refused attempt: a flood does not move the end of the lock', async () => {
      for (let i = 0; i < 5; i++) expect(await allowed('account:flooded')).toBe(true);
      for (let i = 0; i < 200; i++) {
        time += 3_000; // past the memory now and then: refusals from the store count nothing either
        expect(await allowed('account:flooded')).toBe(false);
      }
      // Once the window is over, the five weigh less as they age: the next attempt is let through.
      time = START + WINDOW + 1;
      expect(await allowed('account:flooded')).toBe(true);
    });

    it("holds across a window's edge, lets the past attempts weigh less as they age, and forgets them after two windows", async () => {
      time = START + WINDOW - 1_000;
      for (let i = 0; i < 5; i++) expect(await allowed('account:edge')).toBe(true);
      // A second later the fixed window is new, but the last 15 minutes still hold all five.
      time = START + WINDOW;
      expect(await attempt('account:edge')).toEqual({
        allowed: false,
        retryAfterMs: 1,
        window: START + WINDOW,
        remembered: false,
      });
      // A moment on, four of them weigh: one more gets through, then the lock holds until a fifth
      // of the window has passed.
      time = START + WINDOW + 1;
      expect(await allowed('account:edge')).toBe(true);
      expect(await attempt('account:edge')).toMatchObject({
        allowed: false,
        retryAfterMs: WINDOW / 5,
      });
      // Half a window on, half of the five still weigh (2) beside this window's one: two more get
      // through.
      time = START + WINDOW * 1.5;
      for (let i = 0; i < 2; i++) expect(await allowed('account:edge')).toBe(true);
      expect(await allowed('account:edge')).toBe(false);
      // Two windows later none of them lies within the last 15 minutes.
      time = START + 3 * WINDOW;
      for (let i = 0; i < 5; i++) expect(await allowed('account:edge')).toBe(true);
    });

    it('lets exactly the limit through of a burst of concurrent attempts', async () => {
      const results = await Promise.all(Array.from({ length: 30 }, () => allowed('account:burst')));
      expect(results.filter(Boolean)).toHaveLength(5);
    });

    it('refuses a key at its limit from memory for a few seconds, then asks the store again', async () => {
      for (let i = 0; i < 5; i++) await attempt('account:held');
      expect(await attempt('account:held')).toMatchObject({ allowed: false, remembered: false });
      time += REMEMBERED_MS - 1;
      expect(await attempt('account:held', 'ip:new')).toMatchObject({
        allowed: false,
        remembered: true,
      });
      time += 1;
      expect(await attempt('account:held')).toMatchObject({ allowed: false, remembered: false });
    });

    it('forgets a cleared key at once, here and in the store', async () => {
      for (let i = 0; i < 5; i++) await attempt('account:locked', `ip:${i}`);
      expect(await allowed('account:locked')).toBe(false);
      await store.loginThrottle.clear(['account:locked']);
      for (let i = 0; i < 5; i++) expect(await allowed('account:locked', `ip:${i}`)).toBe(true);
    });
  });

  describe('audit log', () => {
    it('lists entries newest first, a page at a time, with what they touched and never an address', async () => {
      for (let i = 0; i < 5; i++) {
        await store.audit.record({
          account: 'ops@example.org',
          action: i % 2 ? 'invite' : 'login',
          addresses: i,
        });
        if (i !== 2) time += 1_000; // two entries in the same millisecond: the id breaks the tie
      }
      const first = await store.audit.list({ limit: 2 });
      const second = await store.audit.list({ limit: 2, before: first[1] });
      const third = await store.audit.list({ limit: 2, before: second[1] });
      const all = [...first, ...second, ...third];
      // Entries 2 and 3 share their time; the page boundary between them loses and repeats nothing.
      expect(all.map((e) => e.addresses)[0]).toBe(4);
      expect(
        all
          .map((e) => e.addresses)
          .slice(1, 3)
          .sort(),
      ).toEqual([2, 3]);
      expect(all.map((e) => e.addresses).slice(3)).toEqual([1, 0]);
      expect(new Set(all.map((e) => e.id)).size).toBe(5);
      expect(await store.audit.list({ limit: 2, before: all[4] })).toEqual([]);
      expect(all[0]).toMatchObject({ account: 'ops@example.org', action: 'login', addresses: 4 });
    });

    it('keeps the client address of an entry for 90 days, and none for the CLI', async () => {
      const DAY = 24 * 60 * MINUTE;
      await store.audit.record({
        account: 'ops@example.org',
        action: 'login',
        addresses: 0,
        client: '203.0.113.7',
      });
      time += DAY;
      await store.audit.record({ account: 'cli', action: 'admin add a@example.org', addresses: 0 });
      time = START + 90 * DAY - 1;
      await store.audit.record({
        account: 'ops@example.org',
        action: 'logout',
        addresses: 0,
        client: '2001:db8::1',
      });
      const clients = async () => (await store.audit.list({ limit: 10 })).map((e) => e.client);
      expect(await clients()).toEqual(['2001:db8::1', null, '203.0.113.7']);
      // The first entry turns 90 days old: the next write clears its address, and only that.
      time = START + 90 * DAY + 1;
      await store.audit.record({
        account: 'cli',
        action: 'admin totp a@example.org',
        addresses: 0,
      });
      expect(await clients()).toEqual([null, '2001:db8::1', null, null]);
      expect((await store.audit.list({ limit: 10 })).at(-1)).toMatchObject({
        account: 'ops@example.org',
        action: 'login',
      });
    });
  });
}

describeEachEngine(contract);
