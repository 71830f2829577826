// The CLI as a table (server/cli/commands.ts), run through its entry in this process on a real
// SQLite file, and the built CLI for one refusal's exit status (dns). Help lists exactly the
// table's rows; a command, subcommand, option or argument the table does not know is a usage
// error (exit 2, with the usage line); the two queues' retries answer alike, 1 for an item that
// is not dead, 0 once it is queued again.
import { COMMANDS } from '../../../server/cli/commands';
import { invitationMail } from '../../../server/mail/invitation';
import { openSqliteStore } from '../../../server/store';
import { runBuiltCli, runCli } from '../../support/cli';
import { tempDataDir } from '../../support/config';
import { queuedSignup } from '../../support/stores';

const USAGE_LINE = 'Run with --help for usage.\n';

const cli = (dataDir: string, ...args: string[]) => runCli({ DATA_DIR: dataDir }, args);

/** `mail retry 1` and `outbox retry 1`, which answer alike. */
const retryBoth = async (dataDir: string) => ({
  mail: await cli(dataDir, 'mail', 'retry', '1'),
  outbox: await cli(dataDir, 'outbox', 'retry', '1'),
});

/**
 * Mail 1 and outbox item 1, both still waiting; with `dead`, both set aside past the maximum age.
 */
async function queues(dead: boolean): Promise<string> {
  const dataDir = tempDataDir();
  let now = Date.parse('2026-11-01T10:00:00.000Z');
  const store = openSqliteStore({ dataDir }, () => now);
  await store.signups.add({ email: 'first@example.org', description: '' });
  const compose = (to: string, key: string, leaveToken: string) =>
    invitationMail({
      siteUrl: 'https://orgnote.example',
      from: 'no-reply@orgnote.example',
      to,
      key,
      leaveToken,
    });
  const invitation = await store.subscriptions.invite('first@example.org', {
    again: false,
    compose,
  });
  await store.outbox.enqueue(queuedSignup('queued@example.org'));
  if (dead && invitation.outcome === 'invited') {
    now += 8 * 24 * 3_600_000; // past QUEUE_MAX_AGE_HOURS' default of 7 days
    await store.mail.retry(invitation.mail, '421 busy');
    const [item] = await store.outbox.claim(1);
    await store.outbox.failed(item, 'status 503');
  }
  await store.close();
  return dataDir;
}

describe('the command table', () => {
  it('help lists exactly the commands of the table, each of which the CLI knows', async () => {
    const { code, out } = await cli(tempDataDir(), '--help');
    expect(code).toBe(0);
    const listed = out
      .split('\n\n')
      .find((block) => block.startsWith('Commands:\n'))!
      .split('\n')
      .slice(1)
      .map((line) =>
        line
          .trim()
          .split(/\s{2,}/)[0]
          .split(' ')
          .filter((word) => /^[a-z]/.test(word))
          .join(' '),
      );
    const table = COMMANDS.flatMap((row) => [row.name, ...(row.also ?? []).map(() => row.name)]);
    expect(listed).toEqual(table);
    expect([...new Set(listed)]).toEqual([
      'list',
      'count',
      'suppressed count',
      'stats',
      'export',
      'import',
      'confirm',
      'invite',
      'mail',
      'mail retry',
      'remove',
      'issue-key',
      'outbox',
      'outbox retry',
      'migrate',
      'backup',
      'restore',
      'dns',
      'audit',
      'admin add',
      'admin list',
      'admin remove',
      'admin password',
      'admin totp',
      'admin unlock',
      'webhooks',
      'webhooks add',
      'webhooks list',
      'webhooks rename',
      'webhooks remove',
      'webhooks rotate',
      'webhooks test',
      'webhooks replay',
    ]);
    const dataDir = tempDataDir();
    for (const name of new Set(listed))
      expect((await cli(dataDir, ...name.split(' '))).err).not.toContain('unknown');
  });

  it.each([
    [['frobnicate'], 'unknown command: frobnicate'],
    [['count', '--frobnicate'], "Unknown option '--frobnicate'"],
    [['mail', 'resend', '1'], 'mail: unknown subcommand: resend'],
    [['outbox', 'resend'], 'outbox: unknown subcommand: resend'],
    [['mail', 'retry'], 'mail retry needs an id (a whole number)'],
    [['outbox', 'retry', 'one'], 'outbox retry needs an id (a whole number)'],
    [['remove', 'a@example.org', 'b@example.org'], 'remove needs exactly one email address'],
    [['backup'], 'backup needs a destination file'],
    [['export', '--since', 'someday'], '--since: not a date: someday'],
  ])('%j is a usage error: exit 2, the reason, and the usage line', async (argv, reason) => {
    const { code, out, err } = await cli(tempDataDir(), ...argv);
    expect({ code, out }).toEqual({ code: 2, out: '' });
    expect(err.startsWith('waitlist: ')).toBe(true);
    expect(err).toContain(reason);
    expect(err.endsWith(`\n${USAGE_LINE}`)).toBe(true);
  });

  it('dns without the DKIM settings exits 1 and says what to set', () => {
    expect(runBuiltCli({ DATA_DIR: tempDataDir() }, ['dns'])).toEqual({
      code: 1,
      out: '',
      err: 'waitlist: dns needs DKIM_PRIVATE_KEY_FILE and DKIM_SELECTOR (DKIM_DOMAIN defaults to the domain of MAIL_FROM).\n',
    });
  });

  it('mail retry and outbox retry refuse an item that is not dead with exit 1 and say where to look', async () => {
    const dataDir = await queues(false);
    expect(await retryBoth(dataDir)).toEqual({
      mail: { code: 1, out: '', err: 'waitlist: mail 1 is not dead (see: waitlist mail)\n' },
      outbox: {
        code: 1,
        out: '',
        err: 'waitlist: outbox item 1 is not dead (see: waitlist outbox)\n',
      },
    });
    expect(await cli(dataDir, 'mail', 'retry', '99')).toMatchObject({
      code: 1,
      err: 'waitlist: mail 99 is not dead (see: waitlist mail)\n',
    });
  });

  it('mail retry and outbox retry give a dead item another try, and the listings show it', async () => {
    const dataDir = await queues(true);
    expect((await cli(dataDir, 'mail')).out).toContain('0 queued, 0 failed, 1 dead\n');
    expect((await cli(dataDir, 'outbox')).out).toContain('0 pending, 1 dead\n');
    expect(await retryBoth(dataDir)).toEqual({
      mail: { code: 0, out: 'mail 1 is queued again; the running site sends it\n', err: '' },
      outbox: { code: 0, out: 'outbox item 1 is pending again, due now\n', err: '' },
    });
    expect((await cli(dataDir, 'mail')).out).toContain('1 queued, 0 failed, 0 dead\n');
    expect((await cli(dataDir, 'outbox')).out).toContain('1 pending, 0 dead\n');
  });
});
