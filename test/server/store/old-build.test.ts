// Stores an older build made, opened by this one: a SQLite file and a PostgreSQL database that
// the code of OLD_COMMIT (where issue 52 began, the last build before the one list of versions)
// created and filled through its own store, in every table. This build opens them as the site
// does: both end at this build's version of the one list, every row as it was (with what the
// versions since add), and with the schema a store this build makes from nothing has
// (docs/decisions/0031-one-migration-list.md).
//
// The old code runs from its own files (git archive) on this checkout's node_modules, through
// tsx: no build needed. The clone needs the commit, as a full clone has it.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { query } from '../../../scripts/lib/launch/postgres';
import { LATEST_VERSION } from '../../../server/store/migrations';
import { openStore } from '../../../server/store/open';
import { APPLICATION_ID } from '../../../server/store/sqlite/database';
import { tempDataDir, testConfig } from '../../support/config';
import { sqliteHeader } from '../../support/older-schema';
import { describeWithPostgres } from '../../support/postgres';
import { sharedPostgres, type SharedPostgres } from '../../support/shared-postgres';

const run = promisify(execFile);

/** main when issue 52 began: SQLite's user_version 15 and PostgreSQL's version 12 there. */
const OLD_COMMIT = '9b263f93a8eda905826924304854cc2c3327a1a6';
/** Its version in the one list. */
const OLD_VERSION = 12;
const NEW_ROOT = path.resolve(__dirname, '../../..');
const TSX = path.join(NEW_ROOT, 'node_modules/tsx/dist/cli.mjs');

/**
 * Run by the old code (its API, not this checkout's): `fill` opens the store as the old site
 * does and writes rows into every table through it; `open` only opens it, and prints why not.
 * Its names are OLD_COMMIT's (store.links, writeOwedCreations): a rename here must not reach it.
 */
const OLD_SCRIPT = `
import { openStore } from './server/store/open';

const [mode, dataDir, databaseUrl] = process.argv.slice(2);
const settings = {
  dataDir,
  databaseUrl: databaseUrl || undefined,
  databaseConnectSeconds: 0,
  databaseTimeoutMs: 10_000,
  backendTimeoutMs: 10_000,
  smtpTimeoutMs: 10_000,
  outboxMaxItems: 100,
  mailMaxItems: 100,
  queueMaxAgeMs: 86_400_000,
};
const mail = (to: string, subject: string) => ({
  from: 'OrgNote <hello@orgnote.example>',
  to,
  subject,
  text: subject + ' \u2014 Ёлка',
  html: '<p>' + subject + '</p>',
  messageId: '<' + subject.toLowerCase() + '.' + to + '>',
  date: '2026-11-30T10:00:00.000Z',
  headers: { 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
});

async function fill(store: any): Promise<void> {
  const hook = await store.webhooks.add({
    url: 'https://hooks.example.org/orgnote?token=x',
    name: 'crm',
    events: [],
    withAddress: true,
  });
  await store.webhooks.test(hook.id);
  await store.signups.add({ email: 'Unconfirmed@example.org', description: '' }, { confirm: true });
  await store.signups.add({ email: 'welcome@example.org', description: '' }, { welcome: true });
  for (const email of ['invited@example.org', 'active@example.org', 'keyed@example.org']) {
    await store.signups.add({ email, description: 'Ёлка, "quoted", \u2028 and a tab\\t' });
  }
  await store.signups.add({ email: 'leaving@example.org', description: '' });
  const canMail = () => true;
  const confirm = (to: string) => mail(to, 'Confirm');
  await store.links.mailConfirmations(10, { compose: confirm, canMail, validMs: 86_400_000 });
  await store.links.mailWelcomes(10, { compose: (to: string) => mail(to, 'Welcome'), canMail });
  const keys = new Map<string, string>();
  const compose = (to: string, key: string) => (keys.set(to, key), mail(to, 'Invitation'));
  for (const email of ['invited@example.org', 'active@example.org']) {
    const invitation = await store.subscriptions.invite(email, { again: false, compose });
    await store.mail.sent(invitation.mail.id);
  }
  const account = { provider: 'github', id: '4242', email: 'active@github.example' };
  await store.subscriptions.activate('active@example.org', keys.get('active@example.org'), account);
  await store.subscriptions.issueKey('keyed@example.org');
  await store.links.askLeaveLink('leaving@example.org');
  await store.signupEvents.writeOwedCreations(10);
  await store.outbox.enqueue({
    path: '/api/v1/waitlist?lang=ru',
    fields: [['email', 'invited@example.org'], ['description', 'Ёлка']],
    forwarded: { 'x-forwarded-for': '203.0.113.7', 'x-forwarded-proto': 'https' },
    idempotencyKey: '6f1c2b1e-0d7a-4c55-9c61-2d5e0a7b9f10',
  });
  const admin = 'Operator@example.org';
  await store.admins.add(admin, '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2g');
  await store.admins.setTotp(admin, 'JBSWY3DPEHPK3PXP');
  await store.admins.acceptTotpStep(admin, 59_000_123);
  await store.sessions.start(admin, 'a'.repeat(64));
  await store.loginThrottle.attempt(['account:' + 'b'.repeat(64)], { windowMs: 900_000, limit: 5 });
  await store.consoleKeys.get('device-cookies');
  const client = '198.51.100.4';
  await store.audit.record({ account: admin, action: 'invite', addresses: 2, client });
  await store.audit.record({ account: 'cli', action: 'export', addresses: 6 });
  await store.guardTokens.use('c'.repeat(64), 3, 1_900_000_000_000);
  await store.rate.hit('203.0.113.7', 60_000);
}

async function main(): Promise<void> {
  let store;
  try {
    store = await openStore(settings);
  } catch (err) {
    console.log((err as Error).message);
    process.exit(3);
  }
  if (mode === 'fill') await fill(store);
  await store.close();
}
void main();
`;

let oldRoot: string;

beforeAll(async () => {
  try {
    await run('git', ['cat-file', '-e', `${OLD_COMMIT}^{commit}`], { cwd: NEW_ROOT });
  } catch {
    const what = `commit ${OLD_COMMIT}, the old build of this test`;
    throw new Error(`${what}, is missing from this clone: fetch the full history`);
  }
  oldRoot = tempDataDir();
  const files = ['server', 'shared', 'package.json', 'tsconfig.json'];
  await run('sh', ['-c', `git archive ${OLD_COMMIT} ${files.join(' ')} | tar -x -C "${oldRoot}"`], {
    cwd: NEW_ROOT,
  });
  fs.symlinkSync(path.join(NEW_ROOT, 'node_modules'), path.join(oldRoot, 'node_modules'));
  fs.writeFileSync(path.join(oldRoot, 'old-store.ts'), OLD_SCRIPT);
}, 60_000);

/** Runs OLD_SCRIPT with the old code; its output, and its exit code (0: the store opened). */
async function oldCode(...args: string[]): Promise<{ code: number; out: string }> {
  try {
    const options = { cwd: oldRoot, timeout: 60_000 };
    const { stdout } = await run(process.execPath, [TSX, 'old-store.ts', ...args], options);
    return { code: 0, out: stdout };
  } catch (err) {
    const failed = err as { code?: number; stdout?: string; stderr?: string };
    if (failed.code !== 3) throw new Error(`the old code failed: ${failed.stderr}`);
    return { code: 3, out: failed.stdout ?? '' };
  }
}

type Rows = Record<string, unknown[]>;

/**
 * The old build's rows as the versions since leave them: version 13 records every signup as
 * English; version 14 adds the suppression list and the store's keys, empty until someone
 * leaves; version 15 a signup's source, unknown for those before it; version 16 the (empty) data
 * requests and links, and keeps each mail's kind (unknown before it) and the subject of a
 * message still held; version 17 marks imported unconfirmed rows (none here); version 18 says who
 * found an address undeliverable (unknown before it) and adds the (empty) bounce tables.
 * schema_migrations is left out: the versions since add rows to it.
 */
function upgradedRows({ schema_migrations: _, ...rows }: Rows): Rows {
  const signups = rows.signups.map((row) => ({
    ...(row as object),
    language: 'en',
    utm_source: null,
    utm_medium: null,
    utm_campaign: null,
    referrer: null,
    imported_unconfirmed_at: null,
    undeliverable_by: null,
    undeliverable_detail: null,
  }));
  const mail = rows.mail.map((row) => {
    const { message } = row as { message: string | null };
    const subject = message === null ? null : (JSON.parse(message) as { subject: string }).subject;
    return { ...(row as object), kind: null, subject };
  });
  return {
    ...rows,
    signups,
    mail,
    store_keys: [],
    suppressions: [],
    data_requests: [],
    data_tokens: [],
    bounce_notices: [],
    bounce_tokens: [],
    transient_bounces: [],
  };
}

const SQLITE_TABLES = `
SELECT name
FROM sqlite_master
WHERE type = 'table'
ORDER BY name`;

/** Every table's rows, in rowid order. */
function sqliteRows(file: string): Rows {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const tables = db.prepare(SQLITE_TABLES).pluck().all() as string[];
    const rowsOf = (table: string) => db.prepare(`SELECT *\nFROM "${table}"\nORDER BY rowid`);
    return Object.fromEntries(tables.map((table) => [table, rowsOf(table).all()]));
  } finally {
    db.close();
  }
}

/** The new build opens the store as the site does: at the list's last version, and answering. */
async function opensAtLatest(env: Record<string, string>): Promise<void> {
  const store = await openStore(testConfig(env));
  try {
    expect(await store.schema()).toEqual({ found: LATEST_VERSION, release: LATEST_VERSION });
    await expect(store.ping()).resolves.toBeUndefined();
  } finally {
    await store.close();
  }
}

/** Every table has rows: what the old code wrote reached each one. */
function expectEveryTableFilled(rows: Rows): void {
  const empty = Object.keys(rows).filter((table) => rows[table].length === 0);
  expect(empty).toEqual([]);
}

it("SQLite: the old build's file opens at this build's version, every row intact", async () => {
  const dataDir = tempDataDir();
  expect(await oldCode('fill', dataDir)).toEqual({ code: 0, out: '' });
  const file = path.join(dataDir, 'waitlist.db');
  const before = sqliteHeader(file);
  expect(before).toMatchObject({ userVersion: OLD_VERSION + 3, applicationId: 0 });
  const rows = sqliteRows(file);
  expectEveryTableFilled(rows);
  expect(Object.keys(rows)).toHaveLength(14);

  await opensAtLatest({ DATA_DIR: dataDir });
  const upgraded = sqliteRows(file);
  expect(upgraded).toEqual(upgradedRows(rows));
  const after = sqliteHeader(file);
  expect(after).toMatchObject({ userVersion: LATEST_VERSION, applicationId: APPLICATION_ID });

  // A new file ends with the schema the old code's file has.
  const fresh = tempDataDir();
  await (await openStore(testConfig({ DATA_DIR: fresh }))).close();
  expect(sqliteHeader(path.join(fresh, 'waitlist.db'))).toEqual(after);

  // The old build, rolled back onto the file without the backup, reads its user_version in its
  // own numbering (which ends at 15): past that, it refuses the file as newer than it knows, and
  // leaves it as it was.
  expect(LATEST_VERSION).toBeGreaterThan(15);
  const rolledBack = await oldCode('open', dataDir);
  expect(rolledBack).toEqual({
    code: 3,
    out: `${file} has schema version ${LATEST_VERSION}, newer than this release knows (15).\n`,
  });
  expect(sqliteHeader(file)).toEqual(after);
  expect(sqliteRows(file)).toEqual(upgraded);
}, 120_000);

describeWithPostgres('PostgreSQL', () => {
  let server: SharedPostgres;
  beforeAll(async () => {
    server = await sharedPostgres();
  });
  afterAll(() => server?.dropDatabases());

  /** Every table's rows, ordered by their text, so no table needs its key named. */
  async function postgresRows(url: string): Promise<Rows> {
    const tables = await query<{ name: string }>(
      url,
      `SELECT tablename AS name
      FROM pg_tables
      WHERE schemaname = 'public'
      ORDER BY tablename`,
    );
    const rows: Rows = {};
    for (const { name } of tables) {
      rows[name] = await query(url, `SELECT t.*\nFROM ${name} t\nORDER BY t::text`);
    }
    return rows;
  }

  /** Columns, indexes and constraints as the catalog has them (SQL layout aside). */
  async function postgresSchema(url: string) {
    return {
      columns: await query(
        url,
        `SELECT table_name, column_name, ordinal_position, data_type, column_default,
          is_nullable, collation_name
        FROM information_schema.columns
        WHERE table_schema = 'public'
        ORDER BY table_name, ordinal_position`,
      ),
      indexes: await query(
        url,
        `SELECT indexname, indexdef
        FROM pg_indexes
        WHERE schemaname = 'public'
        ORDER BY indexname`,
      ),
      constraints: await query(
        url,
        `SELECT conrelid::regclass::text AS on_table, conname, pg_get_constraintdef(oid) AS def
        FROM pg_constraint
        WHERE connamespace = 'public'::regnamespace
        ORDER BY conname`,
      ),
    };
  }

  it("the old build's database opens at this build's version, every row intact", async () => {
    const url = await server.createDatabase();
    expect(await oldCode('fill', tempDataDir(), url)).toEqual({ code: 0, out: '' });
    const rows = await postgresRows(url);
    expectEveryTableFilled(rows);
    expect(Object.keys(rows)).toHaveLength(16);
    expect(rows.schema_migrations).toHaveLength(OLD_VERSION);

    await opensAtLatest({ DATABASE_URL: url });
    const { schema_migrations: versions, ...upgraded } = await postgresRows(url);
    expect(upgraded).toEqual(upgradedRows(rows));
    expect(versions).toHaveLength(LATEST_VERSION);
    // The old code's database ends with the schema a new one has.
    expect(await postgresSchema(url)).toEqual(
      await postgresSchema(await server.createMigratedDatabase()),
    );
  }, 120_000);
});
