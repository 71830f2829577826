// A mail server slower than the mail lease, on both engines: SMTP_TIMEOUT_MS bounds each wait of a
// send, not the send, so a live send can outlast its lease. Its sender renews the claim as it goes
// (server/mail/send.ts), and another worker on the same database (a second replica) never takes
// the message meanwhile. Before, it took the message once the lease ran out and sent it again.
import { setTimeout as sleep } from 'node:timers/promises';
import { startSmtpServer, type SmtpTestServer } from '../../../scripts/lib/launch/smtp';
import { sendClaimed } from '../../../server/mail/send';
import { createMailer } from '../../../server/mail/transport';
import type { Store } from '../../../server/store/types';
import { tempDataDir } from '../../support/config';
import {
  addInvited,
  besideStore,
  describeEachEngine,
  ENGINES,
  type StoreEngine,
} from '../../support/stores';

/**
 * A short lease, so the test takes seconds: renewed every 500 ms, it leaves a second for a busy
 * machine's delays. The server answers after two of them.
 */
const LEASE_MS = 1_500;
const REPLY_AFTER_MS = 2 * LEASE_MS;

let smtp: SmtpTestServer;
beforeAll(async () => {
  smtp = await startSmtpServer();
});
afterAll(async () => {
  await smtp.close();
  await Promise.all(ENGINES.map((engine) => engine.close()));
});

/**
 * Two replicas on one database with the given lease, a mailer to the test server, and an
 * invitation to `email` queued and claimed by the first in one step, as the CLI and the console
 * invite. The caller closes the mailer and the second store.
 */
async function twoReplicasAndAnInvitation(engine: StoreEngine, leaseMs: number, email: string) {
  const first = await engine.open({ now: Date.now, limits: { mailLeaseMs: leaseMs } });
  const second: Store = await besideStore(first, Date.now, { mailLeaseMs: leaseMs });
  const mailer = createMailer({
    smtpUrl: smtp.url,
    smtpTimeoutMs: 10_000,
    dataDir: tempDataDir(),
    dkim: undefined,
  });
  return { first, second, mailer, mail: await addInvited(first, email) };
}

describeEachEngine((engine) => {
  const run = engine.unavailable ? it.skip : it;

  run(
    'a send slower than the lease keeps its claim: the other replica never takes the message, and it arrives once',
    async () => {
      const email = `${engine.name}@example.org`;
      const { first, second, mailer, mail } = await twoReplicasAndAnInvitation(
        engine,
        LEASE_MS,
        email,
      );
      try {
        smtp.replyAfter(REPLY_AFTER_MS);
        const sending = sendClaimed(first.mail, mailer, mail);
        // The other replica's worker polls while the server holds the message.
        const taken: number[] = [];
        const until = Date.now() + REPLY_AFTER_MS - LEASE_MS / 2;
        while (Date.now() < until) {
          taken.push(...(await second.mail.claim(10)).map((mail) => mail.id));
          await sleep(50);
        }
        expect(taken).toEqual([]);

        expect(await sending).toMatchObject({ outcome: 'sent' });
        expect(await first.mail.counts()).toEqual({ queued: 0, sent: 1, failed: 0, dead: 0 });
        expect(
          (await smtp.waitFor(1)).filter((mail) => mail.envelope.to[0] === email),
        ).toHaveLength(1);
        expect(smtp.stats().duplicates).toBe(0);
      } finally {
        mailer.close();
        await second.close();
      }
    },
    20_000,
  );
}, 'on $name');

// The cap is the sender's, not the store's: one engine shows it.
it('a send stuck past ten leases gives its message up to the other replica', async () => {
  const engine = ENGINES[0];
  const lease = 300; // renewed every 100 ms, the shortest interval: 30 renewals in 3 s
  const { first, second, mailer, mail } = await twoReplicasAndAnInvitation(
    engine,
    lease,
    `stuck-${engine.name}@example.org`,
  );
  try {
    smtp.replyAfter(8_000);
    const sending = sendClaimed(first.mail, mailer, mail);
    const started = Date.now();
    let taken: number[] = [];
    while (taken.length === 0 && Date.now() - started < 7_000) {
      taken = (await second.mail.claim(10)).map((mail) => mail.id);
      await sleep(50);
    }
    expect(taken).toEqual([mail.id]);
    // The stuck send ends (its connection closed), and its outcome changes nothing: the claim
    // is the other replica's now.
    mailer.close(true);
    await sending;
    expect(await first.mail.counts()).toEqual({ queued: 1, sent: 0, failed: 0, dead: 0 });
  } finally {
    mailer.close();
    await second.close();
  }
}, 20_000);
