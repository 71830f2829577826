// `waitlist admin …` as an operator runs it: the password on stdin (never in argv), the accounts
// in a real store on both engines' behalf through SQLite here (the store contract runs both
// engines). Every change is in the audit log, by the actor `cli`. The first account is added by
// the built CLI in its own process, the password piped to it: the hash is then production's
// (64 MiB, 3 passes), whatever cost the tests hash at. At a terminal (util-linux's `script` gives
// the built CLI one), the password is typed unechoed and Ctrl-C exits 130. The other runs are
// in-process.
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { TOTP } from 'otpauth';
import { verifyPassword } from '../../../server/console/password';
import { openSqliteStore } from '../../../server/store';
import { runBuiltCli, runCli, withStore } from '../../support/cli';
import { tempDataDir } from '../../support/config';

const PASSWORD = 'correct horse battery staple';

const admin = (dataDir: string, args: string[], stdin = '') =>
  runCli({ DATA_DIR: dataDir }, ['admin', ...args], { input: stdin });

it('adds an account with the password from stdin, stored only as an argon2id hash, and refuses a short one or a second', async () => {
  const dataDir = tempDataDir();
  await withStore(dataDir, async () => {}); // the site has made the database
  expect((await admin(dataDir, ['list'])).out).toContain('0 account(s): the console is off');
  const added = runBuiltCli({ DATA_DIR: dataDir }, ['admin', 'add', 'Ops@Example.org'], {
    input: `${PASSWORD}\n`,
    timeoutMs: 15_000,
  });
  expect(added).toMatchObject({
    code: 0,
    out: 'Added Ops@Example.org: the console is at /admin.\n',
  });
  const stored = await withStore(dataDir, (store) => store.admins.credentials('ops@example.org'));
  expect(stored?.passwordHash).toMatch(
    /^\$argon2id\$v=19\$m=65536,t=3,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/,
  );
  expect(stored?.passwordHash).not.toContain(PASSWORD);
  expect(await verifyPassword(PASSWORD, stored?.passwordHash)).toBe(true);

  expect(await admin(dataDir, ['add', 'short@example.org'], 'elevenchars\n')).toMatchObject({
    code: 1,
    err: 'waitlist: the password must have at least 12 characters\n',
  });
  expect((await admin(dataDir, ['add', 'ops@example.org'], `${PASSWORD}\n`)).code).toBe(1);
  expect((await admin(dataDir, ['add', 'not-an-address'], `${PASSWORD}\n`)).err).toContain(
    'not an email address',
  );
  expect((await admin(dataDir, ['list'])).out).toMatch(/^Ops@Example\.org\s+\S+Z\s+no$/m);
});

it('a new password ends the sessions of that account; remove deletes it with its sessions', async () => {
  const dataDir = tempDataDir();
  await admin(dataDir, ['add', 'ops@example.org'], `${PASSWORD}\n`);
  await withStore(dataDir, (store) => store.sessions.start('ops@example.org', 'session-hash'));
  expect(
    await admin(dataDir, ['password', 'ops@example.org'], 'another long passphrase\n'),
  ).toMatchObject({ code: 0 });
  const limits = { idleMs: 60_000, maxMs: 3_600_000 };
  expect(
    await withStore(dataDir, (store) => store.sessions.touch('session-hash', limits)),
  ).toBeUndefined();
  const hash = await withStore(
    dataDir,
    async (store) => (await store.admins.credentials('ops@example.org'))?.passwordHash,
  );
  expect(await verifyPassword('another long passphrase', hash)).toBe(true);
  expect(await verifyPassword(PASSWORD, hash)).toBe(false);

  expect((await admin(dataDir, ['remove', 'ops@example.org'])).code).toBe(0);
  expect(await admin(dataDir, ['remove', 'ops@example.org'])).toMatchObject({
    code: 1,
    err: 'waitlist: no account for ops@example.org\n',
  });
  expect((await admin(dataDir, ['password', 'ops@example.org'], `${PASSWORD}\n`)).code).toBe(1);
});

it('enrols two-factor authentication: an otpauth URI whose codes the store can check, and a QR code', async () => {
  const dataDir = tempDataDir();
  await admin(dataDir, ['add', 'ops@example.org'], `${PASSWORD}\n`);
  const { code, out } = await admin(dataDir, ['totp', 'ops@example.org']);
  expect(code).toBe(0);
  const uri = /^otpauth:\/\/totp\/\S+$/m.exec(out)?.[0];
  expect(uri).toBeDefined();
  // The terminal QR code: block characters, several lines of them, before the URI.
  expect(out.split('\n').filter((line) => /[▀▄█]/.test(line)).length).toBeGreaterThan(10);
  const secret = new URL(uri!).searchParams.get('secret');
  const stored = await withStore(dataDir, (store) => store.admins.credentials('ops@example.org'));
  expect(stored?.totpSecret).toBe(secret);
  // What an authenticator app would show validates against the stored secret.
  const app = new TOTP({ secret: secret! });
  expect(
    new TOTP({ secret: stored!.totpSecret! }).validate({ token: app.generate(), window: 0 }),
  ).toBe(0);
  expect((await admin(dataDir, ['list'])).out).toMatch(/^ops@example\.org\s+\S+Z\s+yes$/m);
  expect((await admin(dataDir, ['totp', 'nobody@example.org'])).code).toBe(1);
});

it('enrolling two-factor ends the sessions the account had', async () => {
  const dataDir = tempDataDir();
  await admin(dataDir, ['add', 'ops@example.org'], `${PASSWORD}\n`);
  await withStore(dataDir, (store) => store.sessions.start('ops@example.org', 'before-totp'));
  const { code, out } = await admin(dataDir, ['totp', 'ops@example.org']);
  expect(code).toBe(0);
  const limits = { idleMs: 60_000, maxMs: 3_600_000 };
  expect(
    await withStore(dataDir, (store) => store.sessions.touch('before-totp', limits)),
  ).toBeUndefined();
  expect(out).toContain('its sessions have ended');
});

it('records each account change in the audit log by the actor cli, and no refused one', async () => {
  const dataDir = tempDataDir();
  await admin(dataDir, ['add', 'Ops@Example.org'], `${PASSWORD}\n`);
  await admin(dataDir, ['add', 'short@example.org'], 'elevenchars\n');
  await admin(dataDir, ['password', 'ops@example.org'], 'another long passphrase\n');
  await admin(dataDir, ['totp', 'ops@example.org']);
  await admin(dataDir, ['remove', 'ops@example.org']);
  await admin(dataDir, ['remove', 'ops@example.org']);
  const entries = await withStore(dataDir, (store) => store.audit.list({ limit: 10 }));
  expect(entries.map((e) => [e.account, e.action, e.addresses, e.client])).toEqual([
    ['cli', 'admin remove ops@example.org', 0, null],
    ['cli', 'admin totp ops@example.org', 0, null],
    ['cli', 'admin password ops@example.org', 0, null],
    ['cli', 'admin add Ops@Example.org', 0, null],
  ]);
});

it('audit lists what was done, newest first, naming accounts, counts and clients, never an address of the waitlist', async () => {
  const dataDir = tempDataDir();
  let time = Date.parse('2026-11-01T10:00:00.000Z');
  const store = openSqliteStore({ dataDir }, () => (time += 1_000));
  await store.audit.record({
    account: 'ops@example.org',
    action: 'login',
    addresses: 0,
    client: '203.0.113.7',
  });
  await store.audit.record({
    account: 'ops@example.org',
    action: 'invite',
    addresses: 3,
    client: '203.0.113.7',
  });
  await store.audit.record({ account: 'cli', action: 'export', addresses: 0 });
  await store.close();
  const result = await runCli({ DATA_DIR: dataDir }, ['audit']);
  expect(result.code).toBe(0);
  const lines = result.out.trim().split('\n');
  expect(lines[0]).toMatch(/^at\s+account\s+action\s+addresses\s+client$/);
  expect(lines.slice(2).map((line) => line.split(/\s+/).slice(1))).toEqual([
    ['cli', 'export', '0', '-'],
    ['ops@example.org', 'invite', '3', '203.0.113.7'],
    ['ops@example.org', 'login', '0', '203.0.113.7'],
  ]);
});

const withTerminal = spawnSync('script', ['--version']).status === 0 ? it : it.skip;

withTerminal(
  'at a terminal, asks for the password without echo; Ctrl-C exits 130, adding no one',
  async () => {
    const dataDir = tempDataDir();
    const cli = path.resolve(__dirname, '../../../dist/server/waitlist.js');
    const command = `'${process.execPath}' '${cli}' admin add ops@example.org`;
    const child = spawn('script', ['-qefc', command, '/dev/null'], {
      env: { PATH: process.env.PATH, DATA_DIR: dataDir },
    });
    let screen = '';
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.stdout.on('data', (chunk: Buffer) => {
      const asked = !screen.includes('Password: ');
      screen += chunk.toString();
      if (asked && screen.includes('Password: ')) child.stdin.write(`${PASSWORD}\u0003`);
    });
    expect(await exited).toBe(130);
    expect(screen).toBe('Password: \r\n');
    const stored = await withStore(dataDir, (store) => store.admins.credentials('ops@example.org'));
    expect(stored).toBeUndefined();
  },
);
