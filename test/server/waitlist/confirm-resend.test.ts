// Imported unconfirmed addresses through the real parts: the import brings them in, the expiry
// sweep leaves them while nobody has mailed them, `confirm --resend` makes their confirmation due,
// the mail worker sends it through a real SMTP server on 127.0.0.1 (read back with mailparser),
// and from that mail on they expire as any signup does, unless they follow its link.
import { Readable } from 'node:stream';
import type { Config } from '../../../server/config';
import { openSqliteStore, type SqliteStore } from '../../../server/store';
import { confirmAddress, sweepUnconfirmed } from '../../../server/waitlist/address';
import { resendConfirmations } from '../../../server/waitlist/confirm-resend';
import { importList } from '../../../server/waitlist/import';
import { startWorkers, type Workers } from '../../../server/workers';
import { capturingLogger, testConfig } from '../../support/config';
import { startSmtpServer, type SmtpTestServer } from '../../../scripts/lib/launch/smtp';
import { until } from '../../support/wait';

const SITE_URL = 'https://orgnote.example';
const HOUR = 3_600_000;
const OPS = { account: 'ops@example.org', client: '127.0.0.1' };

let smtp: SmtpTestServer;
beforeAll(async () => {
  smtp = await startSmtpServer();
});
afterAll(() => smtp.close());

let time: number;
let config: Config;
let store: SqliteStore;
let workers: Workers;
beforeEach(() => {
  smtp.received.length = 0;
  time = Date.parse('2026-11-01T10:00:00.000Z');
  config = testConfig({ SITE_URL, SMTP_URL: smtp.url, CONFIRM_SIGNUPS: 'on' });
  store = openSqliteStore(config, () => time);
  // Never saturated, and woken by the operation: the 60 s poll never runs in a test.
  workers = startWorkers({
    config,
    store,
    logger: capturingLogger().logger,
    pollMs: 60_000,
    busy: () => false,
  });
});
afterEach(async () => {
  await workers.stop(1_000);
  await store.close();
});

const deps = () => ({ store, config, logger: capturingLogger().logger });
const sweep = () => sweepUnconfirmed(deps(), time);
const emails = async () => (await store.signups.list()).map((row) => row.email).sort();
const tokenOf = (text: string) =>
  new RegExp(`${SITE_URL}/confirm\\?token=([A-Za-z0-9_-]+)`).exec(text)![1];

async function importUnconfirmed(...addresses: string[]) {
  const file = `email,created_at\n${addresses.map((a) => `${a},2024-05-05`).join('\n')}\n`;
  const result = await importList(
    { store, config },
    { source: Readable.from([file]), fileName: 'beta.csv', actor: OPS },
  );
  expect(result).toMatchObject({ report: { added: { count: addresses.length } } });
}

it('keeps imported unconfirmed addresses until mailed, then counts the expiry from that mail', async () => {
  await importUnconfirmed('ann@example.org', 'bob@example.org');
  // Joined long ago, never mailed: a year on, the sweep still leaves them.
  time += 365 * 24 * HOUR;
  expect(await sweep()).toBe(0);
  expect(smtp.received).toHaveLength(0);

  const result = await resendConfirmations(
    { store, config, wakeMail: workers.wakeMail },
    { actor: OPS },
  );
  expect(result).toEqual({ kind: 'all', due: 2 });
  await until('both confirmations arrived', () => smtp.received.length === 2);
  const mailedAt = time;
  const [ann] = smtp.received.filter((m) => m.envelope.to.includes('ann@example.org'));
  expect(ann.parsed.subject).toBe('Confirm your address for the OrgNote waitlist');

  // Ann follows her link; Bob does nothing.
  expect(await confirmAddress(deps(), tokenOf(ann.parsed.text ?? ''))).toEqual({ ok: true });
  time = mailedAt + config.confirmWithinMs - 1;
  expect(await sweep()).toBe(0);
  time = mailedAt + config.confirmWithinMs;
  expect(await sweep()).toBe(1);
  expect(await emails()).toEqual(['ann@example.org']);
  expect(await store.suppressions.has('bob@example.org')).toBe(true);
  const [entry] = await store.audit.list({ limit: 1 });
  expect(entry).toMatchObject({ ...OPS, action: 'confirm --resend', addresses: 2 });
});

it('mails one address when asked, and nobody else', async () => {
  await importUnconfirmed('ann@example.org', 'bob@example.org');
  const result = await resendConfirmations(
    { store, config, wakeMail: workers.wakeMail },
    { email: ' Bob@Example.org ', actor: OPS },
  );
  expect(result).toEqual({ kind: 'one', email: 'Bob@Example.org', outcome: 'due' });
  await until('the confirmation arrived', () => smtp.received.length === 1);
  await workers.flush();
  expect(smtp.received.map((m) => m.envelope.to)).toEqual([['bob@example.org']]);
  expect(await store.imports.awaitingConfirmation()).toBe(1);
});
