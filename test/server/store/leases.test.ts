// Leases with an owner (server/store/leases.ts), on both engines: two store instances on one
// database stand for two workers (two replicas, or the site and a CLI). A worker whose lease ran
// out can neither complete, nor fail, nor release an item another worker has claimed since; what
// the live worker records is what stays. Time is the test's clock.
import type { Store } from '../../../server/store/types';
import {
  addInvited,
  besideStore,
  describeEachEngine,
  type StoreEngine,
} from '../../support/stores';

const START = Date.parse('2026-03-01T00:00:00.000Z');
const HOUR = 3_600_000;

const request = (email: string) => ({
  path: '/api/subscriptions',
  fields: [['email', email]] as [string, string][],
  forwarded: {},
  idempotencyKey: `key-${email}`,
});

function leases(engine: StoreEngine) {
  let time: number;
  const now = () => time;
  let first: Store;
  let second: Store;

  beforeEach(async () => {
    time = START;
    first = await engine.open({ now });
    second = await besideStore(first, now);
  });
  afterEach(async () => {
    await second.close();
    await engine.closeStores();
  });
  afterAll(() => engine.close());

  describe('the outbox', () => {
    it("refuses a stale worker's failure and delivery once another has claimed the item, and keeps the live worker's record", async () => {
      const id = await first.outbox.enqueue(request('ann@example.org'));
      time += HOUR;
      const [stale] = await first.outbox.claim(10);
      time += HOUR; // the first worker stalls past its lease
      const [live] = await second.outbox.claim(10);
      expect(live.id).toBe(id);

      expect(await second.outbox.failed(live, 'status 503')).toBe(true);
      expect(await first.outbox.failed(stale, 'timeout')).toBe(false);
      expect(await first.outbox.delivered(id)).toBe(false);
      const [item] = await first.outbox.all();
      expect({ attempts: item.attempts, lastError: item.lastError }).toEqual({
        attempts: 1,
        lastError: 'status 503',
      });

      time += HOUR;
      const [again] = await second.outbox.claim(10);
      expect(await second.outbox.delivered(again.id)).toBe(true);
      expect(await first.outbox.all()).toEqual([]);
    });

    it('still takes the outcome of a worker whose lease ran out when nobody claimed the item since', async () => {
      await first.outbox.enqueue(request('bo@example.org'));
      time += HOUR;
      const [item] = await first.outbox.claim(10);
      time += HOUR;
      expect(await first.outbox.delivered(item.id)).toBe(true);
      expect(await second.outbox.all()).toEqual([]);
    });

    it('lets no second claim take an item while its lease runs', async () => {
      await first.outbox.enqueue(request('cy@example.org'));
      time += HOUR;
      expect(await first.outbox.claim(10)).toHaveLength(1);
      expect(await second.outbox.claim(10)).toEqual([]);
    });
  });

  describe('the mail queue', () => {
    const invited = (email: string) => addInvited(first, email);

    it("refuses a stale sender's failure, release and sent once another has claimed the message, and keeps the live sender's record", async () => {
      const mail = await invited('dee@example.org'); // claimed by the inviting CLI (first)
      time += HOUR; // which stalls past its lease
      const [live] = await second.mail.claim(10);
      expect(live.id).toBe(mail.id);

      await first.mail.failed(mail.id, '550 no such user');
      await first.mail.release(mail.id);
      expect(await third().mail.claim(10)).toEqual([]); // still the live sender's
      expect(await first.mail.sent(mail.id)).toBe(false);
      expect(await second.mail.sent(live.id)).toBe(true);
      expect(await first.mail.counts()).toEqual({ queued: 0, sent: 1, failed: 0, dead: 0 });
    });

    it("refuses a stale sender's reschedule after the live sender recorded its own", async () => {
      const mail = await invited('eve@example.org');
      time += HOUR;
      const [live] = await second.mail.claim(10);
      const due = await second.mail.retry(live, '421 try again later');
      await first.mail.retry(mail, 'timeout');
      const [summary] = await first.mail.pending();
      expect({
        attempts: summary.attempts,
        lastError: summary.lastError,
        nextAttemptAt: summary.nextAttemptAt,
      }).toEqual({
        attempts: 1,
        lastError: '421 try again later',
        nextAttemptAt: due,
      });
    });

    it('keeps a claim its sender renews, lease after lease, and records the sending against the renewed claim', async () => {
      const mail = await invited('fay@example.org'); // claimed by the inviting CLI (first)
      for (let i = 0; i < 5; i++) {
        time += first.mail.leaseMs / 2;
        expect(await first.mail.renew(mail.id)).toBe(true);
        expect(await second.mail.claim(10)).toEqual([]);
      }
      expect(await first.mail.sent(mail.id)).toBe(true);
      expect(await first.mail.counts()).toEqual({ queued: 0, sent: 1, failed: 0, dead: 0 });
    });

    it('renews no claim it does not hold: one another sender took since, or none at all', async () => {
      const mail = await invited('gil@example.org');
      time += HOUR; // the first sender stalls past its lease
      const [live] = await second.mail.claim(10);
      expect(await first.mail.renew(mail.id)).toBe(false);
      expect(await third().mail.renew(mail.id)).toBe(false);
      time += second.mail.leaseMs / 2;
      expect(await second.mail.renew(live.id)).toBe(true);
      // past the live sender's first lease, within its renewed one
      time += second.mail.leaseMs / 2 + 1;
      expect(await third().mail.claim(10)).toEqual([]);
      expect(await first.mail.sent(mail.id)).toBe(false);
      expect(await second.mail.sent(live.id)).toBe(true);
    });

    /**
     * A worker that claims nothing before the checks: the same database again, as another replica
     * would.
     */
    let extra: Store | undefined;
    function third(): Store {
      if (!extra) throw new Error('no third store');
      return extra;
    }
    beforeEach(async () => {
      extra = await besideStore(first, now);
    });
    afterEach(async () => {
      await extra?.close();
      extra = undefined;
    });
  });
}

describeEachEngine(leases, 'leases with an owner ($name)');
