// `waitlist webhooks …` as an operator runs it, through the CLI's entry in this process, on a real
// SQLite store (the store contract covers both engines). The secret printed at add and rotate is
// the one that signs (checked with standardwebhooks), it appears nowhere else; an endpoint is
// listed by its name and the scheme and host of its URL; every change is in the audit log by the
// actor `cli`, naming the endpoint by id and name, never by URL.
import { Webhook } from 'standardwebhooks';
import { startReceiver } from '../../../scripts/lib/webhook-receiver';
import { createLogger } from '../../../server/logger';
import { startWebhookWorker } from '../../../server/workers/webhook-worker';
import { runCli, withStore } from '../../support/cli';
import { tempDataDir } from '../../support/config';

const ADDED = /^Added webhook endpoint (ep_\S+)\. .*\n(whsec_\S+)\n$/;
const PRINTED_SECRET = /\n(whsec_\S+)\n$/;

/** A usage error's answer: exit 2, and `reason` on stderr. */
const usageError = (reason: string) => ({ code: 2, err: expect.stringContaining(reason) });

/** What the running site's webhook worker does with the deliveries queued in `dataDir`. */
const sendQueued = (dataDir: string) =>
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

/** `waitlist webhooks …` on dataDir's store, receivers on loopback allowed. */
const webhooksIn =
  (dataDir: string) =>
  (...args: string[]) =>
    runCli({ DATA_DIR: dataDir, WEBHOOKS_ALLOW_PRIVATE: 'on' }, ['webhooks', ...args]);

it('adds an endpoint, prints its secret once, lists, rotates, tests and removes it, each change audited', async () => {
  const dataDir = tempDataDir();
  const webhooks = webhooksIn(dataDir);
  const receiver = await startReceiver();
  try {
    const added = await webhooks('add', receiver.url, '--events', 'invitation.sent,webhook.test');
    expect(added).toMatchObject({
      code: 2,
      err: expect.stringContaining('unknown event: webhook.test'),
    });

    // /privacy names an endpoint that receives addresses: it needs a name.
    expect(await webhooks('add', receiver.url, '--with-address')).toMatchObject(
      usageError('webhooks add --with-address needs --name NAME: /privacy shows it'),
    );
    const ok = await webhooks('add', receiver.url, '--with-address', '--name', 'Our CRM');
    expect(ok.code).toBe(0);
    const [, id, secret] = ADDED.exec(ok.out)!;
    const listed = (await webhooks('list')).out;
    expect(listed).toMatch(
      new RegExp(
        `${id} +\\S+ +Our CRM +http://127\\.0\\.0\\.1:${receiver.port} +all +yes +enabled\\n` +
          '1 endpoint\\(s\\)\\n$',
      ),
    );
    expect(listed).not.toContain('/hooks');

    const rotated = await webhooks('rotate', id);
    expect(rotated.code).toBe(0);
    const newSecret = PRINTED_SECRET.exec(rotated.out)![1];
    expect(newSecret).not.toBe(secret);
    expect(await webhooks('test', id)).toMatchObject({
      code: 0,
      out: expect.stringMatching(/^Queued msg_/),
    });

    // The running site's worker sends it: both printed secrets verify it.
    await sendQueued(dataDir);
    const [got] = receiver.received;
    for (const key of [secret, newSecret])
      expect(new Webhook(key).verify(got.body, got.headers)).toMatchObject({
        type: 'webhook.test',
      });

    expect(await webhooks('remove', id)).toMatchObject({
      code: 0,
      out: `Removed webhook endpoint ${id}\n`,
    });
    expect(await webhooks('remove', id)).toMatchObject({ code: 1 });
    expect((await webhooks('list')).out).toContain('0 endpoint(s)');

    const audit = (await runCli({ DATA_DIR: dataDir }, ['audit'])).out;
    const origin = `http://127\\.0\\.0\\.1:${receiver.port}`;
    for (const action of ['add', 'rotate', 'test', 'remove'])
      expect(audit).toMatch(new RegExp(`cli +webhooks ${action} ${id} "Our CRM" ${origin} `));
    expect(audit).not.toContain('whsec_');
    expect(audit).not.toContain(receiver.url);
  } finally {
    await receiver.close();
  }
});

it('refuses an endpoint that is not https on a public address unless WEBHOOKS_ALLOW_PRIVATE is on', async () => {
  const dataDir = tempDataDir();
  const refused = await runCli({ DATA_DIR: dataDir }, [
    'webhooks',
    'add',
    'http://127.0.0.1:9/hooks',
  ]);
  expect(refused).toMatchObject({
    code: 1,
    err: expect.stringContaining('not an https URL (WEBHOOKS_ALLOW_PRIVATE is off)'),
  });
  expect(
    (await runCli({ DATA_DIR: dataDir }, ['webhooks', 'add', 'https://[::1]:8443/hooks'])).err,
  ).toContain('::1 is not a public address');
  expect((await runCli({ DATA_DIR: dataDir }, ['webhooks', 'list'])).out).toContain(
    '0 endpoint(s)',
  );
});

it('replays the given-up deliveries of an endpoint and enables it again, audited by id', async () => {
  const dataDir = tempDataDir();
  const webhooks = webhooksIn(dataDir);
  const receiver = await startReceiver();
  try {
    const [, id] = ADDED.exec((await webhooks('add', receiver.url)).out)!;
    await webhooks('test', id);
    receiver.answer = () => ({ status: 410 });
    await sendQueued(dataDir);
    expect((await webhooks('list')).out).toContain('disabled: the receiver answered 410 Gone');

    expect(await webhooks('replay', 'ep_nothing')).toMatchObject({
      code: 1,
      err: expect.stringContaining('no webhook endpoint ep_nothing'),
    });
    expect(await webhooks('replay', id, '--since', 'last tuesday')).toMatchObject({
      code: 2,
      err: expect.stringContaining('--since: not a date: last tuesday'),
    });
    expect(await webhooks('replay', id)).toMatchObject({
      code: 0,
      out: `Queued 1 delivery again for ${id}; the running site sends them\nThe endpoint ${id} is enabled again\n`,
    });
    expect((await webhooks('list')).out).toMatch(/ enabled\n/);
    receiver.answer = () => ({ status: 200 });
    await sendQueued(dataDir);
    const [first, again] = receiver.received;
    expect(again.headers['webhook-id']).toBe(first.headers['webhook-id']);

    // Delivered now: only a replay with a time takes it again.
    expect((await webhooks('replay', id)).out).toMatch(/^Queued 0 deliveries again/);
    expect((await webhooks('replay', id, '--since', '2000-01-01')).out).toMatch(
      /^Queued 1 delivery again for \S+; the running site sends them\n$/,
    );
    const audit = (await runCli({ DATA_DIR: dataDir }, ['audit'])).out;
    expect(
      audit.match(new RegExp(`cli +webhooks replay ${id} http://127\\.0\\.0\\.1:\\d+ `, 'g')),
    ).toHaveLength(3);
    expect(audit).not.toContain(receiver.url);
  } finally {
    await receiver.close();
  }
});

it('rotates with --revoke: deliveries then carry one signature, by the new secret, audited', async () => {
  const dataDir = tempDataDir();
  const webhooks = webhooksIn(dataDir);
  const receiver = await startReceiver();
  try {
    const [, id, first] = ADDED.exec((await webhooks('add', receiver.url)).out)!;
    // A rotation still in its grace first: the revocation ends every secret before the new one.
    const graced = await webhooks('rotate', id, '--grace', '30m');
    expect(graced.out).toMatch(
      /^New signing secret for ep_\S+ \(shown once; the old one also signs for 30 minutes\):\n/,
    );
    const second = PRINTED_SECRET.exec(graced.out)![1];
    const revoked = await webhooks('rotate', id, '--revoke');
    expect(revoked).toMatchObject({
      code: 0,
      out: expect.stringMatching(
        /^New signing secret for ep_\S+ \(shown once; the old one no longer signs\):\nwhsec_/,
      ),
    });
    const current = PRINTED_SECRET.exec(revoked.out)![1];

    await webhooks('test', id);
    await sendQueued(dataDir);
    const [got] = receiver.received;
    expect(got.headers['webhook-signature'].split(' ')).toEqual([expect.stringMatching(/^v1,/)]);
    expect(new Webhook(current).verify(got.body, got.headers)).toMatchObject({
      type: 'webhook.test',
    });
    for (const old of [first, second])
      expect(() => new Webhook(old).verify(got.body, got.headers)).toThrow();

    const audit = (await runCli({ DATA_DIR: dataDir }, ['audit'])).out;
    expect(audit).toMatch(
      new RegExp(`cli +webhooks rotate ${id} \\S+ \\(the old secret signs for 30 minutes more\\)`),
    );
    expect(audit).toMatch(
      new RegExp(`cli +webhooks rotate ${id} \\S+ \\(the old secret revoked\\)`),
    );
  } finally {
    await receiver.close();
  }
});

it('takes --grace 0 as a revocation, and refuses a --grace it cannot read or with --revoke', async () => {
  const dataDir = tempDataDir();
  const webhooks = webhooksIn(dataDir);
  const [, id] = ADDED.exec((await webhooks('add', 'https://hooks.example.com/in')).out)!;
  expect(await webhooks('rotate', id, '--grace', 'soon')).toMatchObject({
    code: 2,
    out: '',
    err: expect.stringContaining('waitlist: --grace: not a duration: soon (e.g. 30m, 2h, 0)'),
  });
  for (const nonsense of ['2 h', '1.5h', '30', '-1h', '2w'])
    expect(await webhooks('rotate', id, `--grace=${nonsense}`)).toMatchObject(
      usageError(`--grace: not a duration: ${nonsense}`),
    );
  expect(await webhooks('rotate', id, '--grace', '8d')).toMatchObject(
    usageError('--grace: at most 7 days: 8d'),
  );
  expect(await webhooks('rotate', id, '--grace', '2h', '--revoke')).toMatchObject({
    code: 2,
    out: '',
    err: expect.stringContaining('webhooks rotate: --revoke or --grace, not both'),
  });
  expect((await runCli({ DATA_DIR: dataDir }, ['audit'])).out).not.toContain('webhooks rotate');

  expect((await webhooks('rotate', id, '--grace', '0')).out).toContain(
    'the old one no longer signs',
  );
  await withStore(dataDir, async (store) => {
    await store.webhooks.test(id);
    const [claimed] = await store.webhooks.claim(1);
    expect(claimed.secrets).toHaveLength(1);
  });
});

it('renames an endpoint, one stored before names too, refusing a name that is empty, too long or not printable', async () => {
  const dataDir = tempDataDir();
  const webhooks = (...args: string[]) => runCli({ DATA_DIR: dataDir }, ['webhooks', ...args]);
  const [, named] = ADDED.exec(
    (
      await webhooks(
        'add',
        'https://hooks.zapier.com/hooks/catch/1234567/abcdefg/',
        '--name',
        'Zapier',
      )
    ).out,
  )!;
  // As the release before names stored it.
  const { id: unnamed } = await withStore(dataDir, (store) =>
    store.webhooks.add({
      url: 'https://eo1a2b3c4d5e6f7.m.pipedream.net/',
      events: [],
      withAddress: true,
    }),
  );
  const listed = (await webhooks('list')).out;
  expect(listed).toMatch(new RegExp(`${named} +\\S+ +Zapier +https://hooks\\.zapier\\.com +all `));
  expect(listed).toMatch(
    new RegExp(`${unnamed} +\\S+ +\\(none\\) +https://eo1a2b3c4d5e6f7\\.m\\.pipedream\\.net +all `),
  );
  expect(listed.split('\n').slice(-3)).toEqual([
    '2 endpoint(s)',
    '1 without a name: waitlist webhooks rename <id> --name NAME gives one ' +
      '(/privacy calls those receiving addresses "a service of theirs")',
    '',
  ]);
  expect(listed).not.toContain('1234567');

  expect(await webhooks('rename', unnamed, '--name', 'x'.repeat(61))).toMatchObject({
    code: 2,
    out: '',
    err: expect.stringContaining('--name: a name is 1 to 60 characters'),
  });
  for (const [name, problem] of [
    ['', 'a name is 1 to 60 characters'],
    ['   ', 'a name is 1 to 60 characters'],
    ['CRM\u202Etxt.exe', 'a name is printable characters only'],
    ['two\nlines', 'a name is printable characters only'],
  ])
    expect(await webhooks('rename', unnamed, '--name', name)).toMatchObject(
      usageError(`--name: ${problem}`),
    );
  expect(await webhooks('add', 'https://hooks.example.com/in', '--name', ' ')).toMatchObject(
    usageError('--name: a name is 1 to 60 characters'),
  );
  expect(await webhooks('rename', unnamed)).toMatchObject({
    code: 2,
    err: expect.stringContaining('webhooks rename needs --name NAME'),
  });
  expect(await webhooks('rename', 'ep_nothing', '--name', 'CRM')).toMatchObject({
    code: 1,
    err: expect.stringContaining('no webhook endpoint ep_nothing'),
  });

  expect(await webhooks('rename', unnamed, '--name', ' Sales « CRM » ')).toMatchObject({
    code: 0,
    out: `Renamed webhook endpoint ${unnamed} to "Sales « CRM »"\n`,
  });
  const renamed = (await webhooks('list')).out;
  expect(renamed).toMatch(new RegExp(`${unnamed} +\\S+ +Sales « CRM » +https://eo1a2b3c4d5e6f7`));
  expect(renamed).toMatch(/\n2 endpoint\(s\)\n$/);
  expect((await runCli({ DATA_DIR: dataDir }, ['audit'])).out).toMatch(
    new RegExp(`cli +webhooks rename ${unnamed} "Sales « CRM »" https://eo1a2b3c4d5e6f7\\S+ `),
  );
});
