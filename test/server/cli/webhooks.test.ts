// `waitlist webhooks …` as an operator runs it: the built CLI in its own process on a real SQLite
// store (the store contract covers both engines). The secret printed at add and rotate is the one
// that signs (checked with standardwebhooks), it appears nowhere else, and every change is in the
// audit log by the actor `cli`, naming the endpoint by id.
import { Webhook } from 'standardwebhooks';
import { createLogger } from '../../../server/logger';
import { startWebhookWorker } from '../../../server/workers/webhook-worker';
import { runCli, withStore } from '../../support/cli';
import { tempDataDir } from '../../support/config';
import { startReceiver } from '../../support/webhook-receiver';

const ADDED = /^Added webhook endpoint (ep_\S+)\. .*\n(whsec_\S+)\n$/;

it('adds an endpoint, prints its secret once, lists, rotates, tests and removes it, each change audited', async () => {
  const dataDir = tempDataDir();
  const webhooks = (...args: string[]) =>
    runCli({ DATA_DIR: dataDir, WEBHOOKS_ALLOW_PRIVATE: 'on' }, ['webhooks', ...args]);
  const receiver = await startReceiver();
  try {
    const added = webhooks('add', receiver.url, '--events', 'invitation.sent,webhook.test');
    expect(added).toMatchObject({
      code: 2,
      err: expect.stringContaining('unknown event: webhook.test'),
    });

    const ok = webhooks('add', receiver.url, '--with-address');
    expect(ok.code).toBe(0);
    const [, id, secret] = ADDED.exec(ok.out)!;
    expect(webhooks('list').out).toMatch(
      new RegExp(`${id} .* ${receiver.url} +all +yes +enabled\\n1 endpoint\\(s\\)\\n$`),
    );

    const rotated = webhooks('rotate', id);
    expect(rotated.code).toBe(0);
    const newSecret = /\n(whsec_\S+)\n$/.exec(rotated.out)![1];
    expect(newSecret).not.toBe(secret);
    expect(webhooks('test', id)).toMatchObject({
      code: 0,
      out: expect.stringMatching(/^Queued msg_/),
    });

    // The running site's worker sends it: both printed secrets verify it.
    await withStore(dataDir, async (store) => {
      const worker = startWebhookWorker({
        webhooks: store.webhooks,
        allowPrivate: true,
        logger: createLogger({ logLevel: 'silent' }),
        pollMs: 60_000,
      });
      await worker.flush();
      await worker.stop();
    });
    const [got] = receiver.received;
    for (const key of [secret, newSecret])
      expect(new Webhook(key).verify(got.body, got.headers)).toMatchObject({
        type: 'webhook.test',
      });

    expect(webhooks('remove', id)).toMatchObject({
      code: 0,
      out: `Removed webhook endpoint ${id}\n`,
    });
    expect(webhooks('remove', id)).toMatchObject({ code: 1 });
    expect(webhooks('list').out).toContain('0 endpoint(s)');

    const audit = runCli({ DATA_DIR: dataDir }, ['audit']).out;
    for (const action of ['add', 'rotate', 'test', 'remove'])
      expect(audit).toMatch(new RegExp(`cli +webhooks ${action} ${id}`));
    expect(audit).not.toContain('whsec_');
    expect(audit).not.toContain(receiver.url);
  } finally {
    await receiver.close();
  }
});

it('refuses an endpoint that is not https on a public address unless WEBHOOKS_ALLOW_PRIVATE is on', () => {
  const dataDir = tempDataDir();
  const refused = runCli({ DATA_DIR: dataDir }, ['webhooks', 'add', 'http://127.0.0.1:9/hooks']);
  expect(refused).toMatchObject({
    code: 1,
    err: expect.stringContaining('not an https URL (WEBHOOKS_ALLOW_PRIVATE is off)'),
  });
  expect(
    runCli({ DATA_DIR: dataDir }, ['webhooks', 'add', 'https://[::1]:8443/hooks']).err,
  ).toContain('::1 is not a public address');
  expect(runCli({ DATA_DIR: dataDir }, ['webhooks', 'list']).out).toContain('0 endpoint(s)');
});

it('replays the given-up deliveries of an endpoint and enables it again, audited by id', async () => {
  const dataDir = tempDataDir();
  const webhooks = (...args: string[]) =>
    runCli({ DATA_DIR: dataDir, WEBHOOKS_ALLOW_PRIVATE: 'on' }, ['webhooks', ...args]);
  const receiver = await startReceiver();
  try {
    const [, id] = ADDED.exec(webhooks('add', receiver.url).out)!;
    webhooks('test', id);
    receiver.answer = () => ({ status: 410 });
    const send = () =>
      withStore(dataDir, async (store) => {
        const worker = startWebhookWorker({
          webhooks: store.webhooks,
          allowPrivate: true,
          logger: createLogger({ logLevel: 'silent' }),
          pollMs: 60_000,
        });
        await worker.flush();
        await worker.stop();
      });
    await send();
    expect(webhooks('list').out).toContain('disabled: the receiver answered 410 Gone');

    expect(webhooks('replay', 'ep_nothing')).toMatchObject({
      code: 1,
      err: expect.stringContaining('no webhook endpoint ep_nothing'),
    });
    expect(webhooks('replay', id, '--since', 'last tuesday')).toMatchObject({
      code: 2,
      err: expect.stringContaining('--since: not a date: last tuesday'),
    });
    expect(webhooks('replay', id)).toMatchObject({
      code: 0,
      out: `Queued 1 delivery again for ${id}; the running site sends them\nThe endpoint ${id} is enabled again\n`,
    });
    expect(webhooks('list').out).toMatch(/ enabled\n/);
    receiver.answer = () => ({ status: 200 });
    await send();
    const [first, again] = receiver.received;
    expect(again.headers['webhook-id']).toBe(first.headers['webhook-id']);

    // Delivered now: only a replay with a time takes it again.
    expect(webhooks('replay', id).out).toMatch(/^Queued 0 deliveries again/);
    expect(webhooks('replay', id, '--since', '2000-01-01').out).toMatch(
      /^Queued 1 delivery again for \S+; the running site sends them\n$/,
    );
    const audit = runCli({ DATA_DIR: dataDir }, ['audit']).out;
    expect(audit.match(new RegExp(`cli +webhooks replay ${id}`, 'g'))).toHaveLength(3);
    expect(audit).not.toContain(receiver.url);
  } finally {
    await receiver.close();
  }
});
