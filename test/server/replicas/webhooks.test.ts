// A webhook delivery in flight when its replica is killed with -9, on two replicas sharing one
// PostgreSQL: the receiver holds open every request of whichever replica sends first, that replica
// is killed while they are open, and the other one sends them again once their lease runs out,
// under the same webhook-id. Every event queued reaches the receiver, verified with
// standardwebhooks, and ends delivered in the store. PostgreSQL only: SQLite is one instance's
// file (docs/operating.md, "Scaling"), so two replicas never share it.
import { Webhook } from 'standardwebhooks';
import { query } from '../../../scripts/lib/launch/postgres';
import { connectionOwner } from '../../../scripts/lib/launch/sockets';
import {
  startReceiver,
  type Receiver,
  type ReceivedWebhook,
} from '../../../scripts/lib/webhook-receiver';
import { runCli } from '../../support/cli';
import { tempDataDir } from '../../support/config';
import { describeWithPostgres } from '../../support/postgres';
import { replicasOnSharedPostgres, signUp } from '../../support/replicas';
import { until } from '../../support/wait';

describeWithPostgres('webhooks on two replicas', () => {
  /** The webhook lease (server/store/webhooks.ts): the attempt's 15 s timeout and 5 s. */
  const LEASE_MS = 20_000;

  const replicas = replicasOnSharedPostgres();
  let hooks: Receiver | undefined;
  afterEach(async () => {
    await hooks?.close();
    hooks = undefined;
  });

  interface DeliveryRow {
    id: string;
    type: string;
    state: string;
    attempts: number;
    last_status: number | null;
  }

  /** The CLI on the replicas' database: what it printed, or what it said when it failed. */
  async function waitlist(env: Record<string, string>, args: string[]): Promise<string> {
    const { code, out, err } = await runCli(env, args);
    if (code !== 0) throw new Error(`waitlist ${args.join(' ')} exited ${code}: ${err}`);
    return out;
  }

  it('delivers, from the other replica and under the same webhook-id, what a replica killed mid-delivery held', async () => {
    const databaseUrl = await replicas.createMigratedDatabase();
    hooks = await startReceiver();
    const receiver = hooks;
    const settings = {
      DATABASE_URL: databaseUrl,
      WEBHOOKS_ALLOW_PRIVATE: 'on',
      LOG_LEVEL: 'warn',
      SIGNUP_RATE_LIMIT: '0',
    };
    const servers = await replicas.start(2, settings);
    const cli = { ...settings, DATA_DIR: tempDataDir(), SITE_URL: servers[0].url };
    const added = await waitlist(cli, ['webhooks', 'add', receiver.url]);
    const secret = /whsec_\S+/.exec(added)![0];

    // Which replica sent each request, from the connection's source port while it is open. The
    // first replica to send is the victim: none of its requests is answered.
    const pids = servers.map((server) => server.child.pid!);
    const sentBy = new Map<ReceivedWebhook, number>();
    let victim: number | undefined;
    receiver.answer = (got) => {
      const pid = connectionOwner(pids, got.remotePort, receiver.port);
      const from = pid === undefined ? -1 : pids.indexOf(pid);
      sentBy.set(got, from);
      victim ??= from;
      return from === victim ? new Promise(() => {}) : { status: 200 };
    };

    // Each signup's signup.created is written by a worker just after the answer; each
    // invitation writes its invitation.sent in its own transaction (no SMTP_URL: the CLI writes
    // the mail to its DATA_DIR).
    const emails = Array.from({ length: 6 }, (_, i) => `hook${i}@example.org`);
    for (const [i, email] of emails.entries())
      expect((await signUp(servers[i % 2], email)).status).toBe(201);
    await waitlist(cli, ['invite', '--next', String(emails.length)]);

    await until('a replica has a delivery in flight', () => victim !== undefined, 10_000);
    expect(victim).not.toBe(-1);
    await new Promise((resolve) => setTimeout(resolve, 300)); // the rest of its round arrives
    servers[victim!].child.kill('SIGKILL');
    await servers[victim!].exited;
    const killedAt = Date.now();
    const survivor = 1 - victim!;

    const inFlight = receiver.received.filter((got) => sentBy.get(got) === victim);
    const heldIds = inFlight.map((got) => got.headers['webhook-id']);
    expect(heldIds.length).toBeGreaterThan(0);
    const rows = () =>
      query<DeliveryRow>(
        databaseUrl,
        'SELECT id, type, state, attempts, last_status FROM webhook_deliveries ORDER BY id',
      );
    // Never answered, never recorded: they wait for their lease to run out.
    expect(
      (await rows()).filter((row) => heldIds.includes(row.id)).map((row) => row.state),
    ).toEqual(heldIds.map(() => 'pending'));

    await until(
      'every delivery is recorded as delivered',
      async () => (await rows()).every((row) => row.state === 'delivered'),
      LEASE_MS + 15_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // one more poll: nothing goes twice

    const stored = await rows();
    expect(stored.map((row) => row.type).sort()).toEqual([
      ...emails.map(() => 'invitation.sent'),
      ...emails.map(() => 'signup.created'),
    ]);
    expect(stored.map((row) => [row.state, row.attempts, row.last_status])).toEqual(
      stored.map(() => ['delivered', 1, 200]),
    );
    // 0 lost: every event queued was received, each signed as the standard says.
    const receivedIds = receiver.received.map((got) => got.headers['webhook-id']);
    expect([...new Set(receivedIds)].sort()).toEqual(stored.map((row) => row.id));
    for (const got of receiver.received)
      expect(new Webhook(secret).verify(got.body, got.headers)).toMatchObject({
        type: stored.find((row) => row.id === got.headers['webhook-id'])!.type,
      });
    // What the victim held came again from the survivor, after the kill, same id and same body;
    // the rest came once.
    for (const held of inFlight) {
      const again = receiver.received.filter(
        (got) => got !== held && got.headers['webhook-id'] === held.headers['webhook-id'],
      );
      expect(again.map((got) => [sentBy.get(got), got.body])).toEqual([[survivor, held.body]]);
      expect(again[0].at).toBeGreaterThanOrEqual(killedAt);
    }
    expect(receivedIds.length).toBe(stored.length + inFlight.length);
  }, 60_000);
});
