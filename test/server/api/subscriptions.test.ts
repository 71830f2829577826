// POST /api/subscription-activation answered by the embedded store (no BACKEND_URL): keys, the
// account a subscription is bound to, and refusals that leave the database as it was. Real SQLite
// files in temp folders; a test clock where the activation time matters.
import request from 'supertest';
import { createApp } from '../../../server/app';
import type { Logger } from '../../../server/logger';
import { openSqliteStore, type SqliteStore as Store } from '../../../server/store';
import type { OutgoingMail } from '../../../server/store/mail-queue';
import { startBackend } from '../../support/backend';
import { capturingLogger, testConfig } from '../../support/config';
import { until } from '../../support/wait';

const ACTIVATION = '/api/subscription-activation';
const SUBJECT = 'Zoe.Subject@Example.org';
const HOLDER = 'holder@example.org';
const GIB = 1024 ** 3;

type App = ReturnType<typeof createApp>;
type Fields = Record<string, unknown>;

function site(
  env: Record<string, string> = {},
  deps: { logger?: Logger; now?: () => number } = {},
) {
  const config = testConfig(env);
  const store = openSqliteStore(config, deps.now);
  return { app: createApp(config, { store, logger: deps.logger }), store, config };
}

/** What the database holds about every subscription and key, to show a refusal changed nothing. */
function snapshot(store: Store) {
  return {
    signups: store.db.prepare('SELECT * FROM signups ORDER BY id').all(),
    keys: store.db.prepare('SELECT * FROM activation_keys ORDER BY key_hash').all(),
  };
}

/** The account the subscription of `email` is bound to, as stored. */
function boundAccount(store: Store, email: string) {
  return store.db
    .prepare(
      'SELECT external_provider AS provider, external_id AS id, external_email AS email FROM signups WHERE email_key = ?',
    )
    .get(email.toLowerCase());
}

const activatedAt = async (store: Store, email: string) =>
  (await store.signups.list()).find((r) => r.email === email)?.activated_at;

/** A multipart activation, the way the OrgNote backend and the product (§7) send it. */
function activate(app: App, fields: Record<string, string>) {
  let req = request(app).post(ACTIVATION);
  for (const [name, value] of Object.entries(fields)) req = req.field(name, value);
  return req;
}

const compose = (to: string, key: string): OutgoingMail => ({
  from: 'OrgNote <no-reply@localhost>',
  to,
  subject: 'Your OrgNote invitation',
  text: key,
  html: `<p>${key}</p>`,
  messageId: `<${Math.random()}@localhost>`,
  date: new Date().toISOString(),
});

describe('POST /api/subscription-activation: keys', () => {
  it.each([
    ['multipart', (r: request.Test, key: string) => r.field('key', key).field('email', SUBJECT)],
    ['urlencoded', (r: request.Test, key: string) => r.type('form').send({ key, email: SUBJECT })],
    ['JSON', (r: request.Test, key: string) => r.send({ key, email: SUBJECT })],
  ])(
    'activates from %s with the stored address, the space limit and no-store',
    async (_kind, send) => {
      const { app, store } = site();
      await store.signups.add({ email: SUBJECT, description: '' });
      const key = await store.subscriptions.issueKey(SUBJECT);
      const res = await send(request(app).post(ACTIVATION), key);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toEqual({ email: SUBJECT, isActive: true, spaceLimit: GIB });
      expect(await store.subscriptions.stateOf(SUBJECT)).toBe('activated');
    },
  );

  it('takes the address in any case and the key or address with spaces around, as people paste them', async () => {
    const { app, store } = site();
    await store.signups.add({ email: SUBJECT, description: '' });
    const key = await store.subscriptions.issueKey(SUBJECT);
    const res = await activate(app, { key: `  ${key}\t`, email: `  ${SUBJECT.toUpperCase()} ` });
    expect(res.status).toBe(200);
    // The answer names the address as it signed up, not as it was typed this time.
    expect(res.body.email).toBe(SUBJECT);
  });

  it('reports SPACE_LIMIT_BYTES as spaceLimit', async () => {
    const { app, store } = site({ SPACE_LIMIT_BYTES: '5368709120' });
    await store.signups.add({ email: SUBJECT, description: '' });
    const res = await activate(app, {
      key: await store.subscriptions.issueKey(SUBJECT),
      email: SUBJECT,
    });
    expect(res.body).toEqual({ email: SUBJECT, isActive: true, spaceLimit: 5 * GIB });
  });

  it('records the activation time once: a repeat answers 200 and leaves it as it was', async () => {
    let clock = Date.parse('2031-02-03T04:05:06.000Z');
    const { app, store } = site({}, { now: () => clock });
    await store.signups.add({ email: SUBJECT, description: '' });
    const key = await store.subscriptions.issueKey(SUBJECT);
    expect((await store.signups.list())[0].activated_at).toBeNull();

    clock += 60_000;
    expect((await activate(app, { key, email: SUBJECT })).status).toBe(200);
    expect((await store.signups.list())[0].activated_at).toBe('2031-02-03T04:06:06.000Z');

    clock += 3_600_000;
    const again = await activate(app, { key, email: SUBJECT });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ email: SUBJECT, isActive: true, spaceLimit: GIB });
    expect((await store.signups.list())[0].activated_at).toBe('2031-02-03T04:06:06.000Z');
  });

  it('refuses a key revoked by a new invitation with 404, and takes the new one', async () => {
    const { app, store } = site();
    await store.signups.add({ email: SUBJECT, description: '' });
    const old = await store.subscriptions.issueKey(SUBJECT);
    let fresh = '';
    const invitation = await store.subscriptions.invite(SUBJECT, {
      again: true,
      compose: (to, key) => ((fresh = key), compose(to, key)),
    });
    expect(invitation.outcome).toBe('invited');
    expect(fresh).not.toBe(old);

    const revoked = await activate(app, { key: old, email: SUBJECT });
    expect(revoked.status).toBe(404);
    expect(revoked.body).toEqual({ error: 'Invalid activation key' });
    expect(await activatedAt(store, SUBJECT)).toBeNull();

    expect((await activate(app, { key: fresh, email: SUBJECT })).status).toBe(200);
  });

  it('refuses the key of an active subscription once it is revoked (invited again after activation)', async () => {
    const { app, store } = site();
    await store.signups.add({ email: SUBJECT, description: '' });
    const old = await store.subscriptions.issueKey(SUBJECT);
    expect((await activate(app, { key: old, email: SUBJECT })).status).toBe(200);
    await store.subscriptions.invite(SUBJECT, { again: true, compose });
    const res = await activate(app, { key: old, email: SUBJECT });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Invalid activation key' });
  });

  it.each([
    [
      'a key issued for another address',
      (_mine: string, theirs: string) => ({ key: theirs, email: SUBJECT }),
    ],
    ['my key with another waitlisted address', (mine: string) => ({ key: mine, email: HOLDER })],
    [
      'my key with an address not on the waitlist',
      (mine: string) => ({ key: mine, email: 'stranger@example.org' }),
    ],
    ['a key nobody was given', () => ({ key: 'x'.repeat(32), email: SUBJECT })],
    [
      'my key with one character changed',
      (mine: string) => ({
        key: `${mine.slice(0, -1)}${mine.endsWith('A') ? 'B' : 'A'}`,
        email: SUBJECT,
      }),
    ],
    [
      'my key in another letter case',
      (mine: string) => ({
        key: mine.toUpperCase() === mine ? mine.toLowerCase() : mine.toUpperCase(),
        email: SUBJECT,
      }),
    ],
  ])('refuses %s with 404 "Invalid activation key" and activates nobody', async (_case, body) => {
    const { app, store } = site();
    await store.signups.add({ email: SUBJECT, description: '' });
    await store.signups.add({ email: HOLDER, description: '' });
    const mine = await store.subscriptions.issueKey(SUBJECT);
    const theirs = await store.subscriptions.issueKey(HOLDER);
    const { key, email } = body(mine, theirs);
    const before = snapshot(store);
    const res = await activate(app, { key, email });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Invalid activation key' });
    expect(snapshot(store)).toEqual(before);
  });
});

// Who may hold a subscription: 'A' is the account of the first activation; 'H' already holds the
// subscription of HOLDER. Each row starts from a fresh store in the named state and sends one
// activation with SUBJECT's own key.
const A = {
  externalProvider: 'github',
  externalId: 'zoe-gh-4242',
  externalEmail: 'zoe@users.noreply.github.com',
};
const ACCOUNTS: Record<string, Record<string, string>> = {
  none: {},
  A,
  'A, provider spelled GitHub': { ...A, externalProvider: 'GitHub' },
  'A, without externalEmail': { externalProvider: A.externalProvider, externalId: A.externalId },
  'A, another externalEmail': { ...A, externalEmail: 'other@example.org' },
  'B, a new account': { externalProvider: 'github', externalId: 'bob-77' },
  "A's id in another case": { ...A, externalId: 'ZOE-GH-4242' },
  "A's id under another provider": { ...A, externalProvider: 'gitlab' },
  'H, holding another subscription': { externalProvider: 'github', externalId: 'holder-1' },
};
const BOUND_ELSEWHERE = {
  status: 409,
  body: { error: 'This subscription is already bound to another OrgNote account' },
};
const ACCOUNT_HAS_ONE = {
  status: 409,
  body: { error: 'This OrgNote account already has a subscription' },
};
const OK = { status: 200, body: { email: SUBJECT, isActive: true, spaceLimit: GIB } };
type Bound = { provider: string; id: string } | null;
const bound = (id: string, provider = 'github'): Bound => ({ provider, id });

type State = 'invited' | 'active without account' | 'bound to A';
const MATRIX: [State, keyof typeof ACCOUNTS, { status: number; body: unknown }, Bound][] = [
  ['invited', 'none', OK, null],
  ['invited', 'A', OK, bound(A.externalId)],
  ['invited', 'A, provider spelled GitHub', OK, bound(A.externalId)],
  ['invited', 'B, a new account', OK, bound('bob-77')],
  ['invited', 'H, holding another subscription', ACCOUNT_HAS_ONE, null],
  ['active without account', 'none', OK, null],
  ['active without account', 'A', OK, bound(A.externalId)],
  ['active without account', 'H, holding another subscription', ACCOUNT_HAS_ONE, null],
  ['bound to A', 'none', OK, bound(A.externalId)],
  ['bound to A', 'A', OK, bound(A.externalId)],
  ['bound to A', 'A, provider spelled GitHub', OK, bound(A.externalId)],
  ['bound to A', 'A, without externalEmail', OK, bound(A.externalId)],
  ['bound to A', 'A, another externalEmail', OK, bound(A.externalId)],
  ['bound to A', 'B, a new account', BOUND_ELSEWHERE, bound(A.externalId)],
  ['bound to A', "A's id in another case", BOUND_ELSEWHERE, bound(A.externalId)],
  ['bound to A', "A's id under another provider", BOUND_ELSEWHERE, bound(A.externalId)],
  ['bound to A', 'H, holding another subscription', BOUND_ELSEWHERE, bound(A.externalId)],
];

describe('POST /api/subscription-activation: the account a subscription is bound to', () => {
  async function inState(state: State) {
    const { app, store } = site();
    await store.signups.add({ email: SUBJECT, description: '' });
    await store.signups.add({ email: HOLDER, description: '' });
    const key = await store.subscriptions.issueKey(SUBJECT);
    const held = await activate(app, {
      key: await store.subscriptions.issueKey(HOLDER),
      email: HOLDER,
      ...ACCOUNTS['H, holding another subscription'],
    });
    expect(held.status).toBe(200);
    if (state === 'active without account')
      expect((await activate(app, { key, email: SUBJECT })).status).toBe(200);
    if (state === 'bound to A')
      expect((await activate(app, { key, email: SUBJECT, ...A })).status).toBe(200);
    return { app, store, key };
  }

  it.each(MATRIX)(
    '%s, activated by %s: answers as expected and the binding is as expected',
    async (state, account, expected, binding) => {
      const { app, store, key } = await inState(state);
      const wasActivatedAt = await activatedAt(store, SUBJECT);
      const res = await activate(app, { key, email: SUBJECT, ...ACCOUNTS[account] });
      expect({ status: res.status, body: res.body }).toEqual(expected);
      expect(boundAccount(store, SUBJECT)).toMatchObject(binding ?? { provider: null, id: null });
      if (expected.status === 200)
        expect(await activatedAt(store, SUBJECT)).toEqual(expect.any(String));
      // A refusal activates nothing that was not active, and moves no activation time.
      else expect(await activatedAt(store, SUBJECT)).toBe(wasActivatedAt);
      // The holder's own subscription is never touched by someone else's activation.
      expect(boundAccount(store, HOLDER)).toMatchObject({ provider: 'github', id: 'holder-1' });
    },
  );

  it('stores the provider in lower case, the id exactly as sent, and externalEmail from the binding activation', async () => {
    const { app, store } = site();
    await store.signups.add({ email: SUBJECT, description: '' });
    const key = await store.subscriptions.issueKey(SUBJECT);
    await activate(app, {
      key,
      email: SUBJECT,
      externalProvider: 'GitHub',
      externalId: 'Zoe-GH',
      externalEmail: 'zoe@users.example',
    });
    await activate(app, {
      key,
      email: SUBJECT,
      externalProvider: 'github',
      externalId: 'Zoe-GH',
      externalEmail: 'later@users.example',
    });
    expect(boundAccount(store, SUBJECT)).toEqual({
      provider: 'github',
      id: 'Zoe-GH',
      email: 'zoe@users.example',
    });
  });

  it.each([
    ['urlencoded', (r: request.Test, f: Fields) => r.type('form').send(f)],
    ['JSON', (r: request.Test, f: Fields) => r.send(f)],
  ])('reads the account fields from %s the same as from multipart', async (_kind, send) => {
    const { app, store } = site();
    await store.signups.add({ email: SUBJECT, description: '' });
    const key = await store.subscriptions.issueKey(SUBJECT);
    expect((await send(request(app).post(ACTIVATION), { key, email: SUBJECT, ...A })).status).toBe(
      200,
    );
    expect(boundAccount(store, SUBJECT)).toEqual({
      provider: A.externalProvider,
      id: A.externalId,
      email: A.externalEmail,
    });
    const other = await send(request(app).post(ACTIVATION), {
      key,
      email: SUBJECT,
      externalProvider: 'github',
      externalId: 'bob-77',
    });
    expect({ status: other.status, body: other.body }).toEqual(BOUND_ELSEWHERE);
  });

  it('accepts an externalId of exactly 256 characters and trims the ones around it', async () => {
    const { app, store } = site();
    await store.signups.add({ email: SUBJECT, description: '' });
    const id = `${'é'.repeat(255)}x`;
    const res = await activate(app, {
      key: await store.subscriptions.issueKey(SUBJECT),
      email: SUBJECT,
      externalProvider: 'github',
      externalId: ` ${id} `,
    });
    expect(res.status).toBe(200);
    expect(boundAccount(store, SUBJECT)).toMatchObject({ id });
  });

  it('binds only one subscription when two accounts race for it', async () => {
    const { app, store } = site();
    await store.signups.add({ email: SUBJECT, description: '' });
    const key = await store.subscriptions.issueKey(SUBJECT);
    const ids = Array.from({ length: 10 }, (_, i) => `racer-${i}`);
    const answers = await Promise.all(
      ids.map((externalId) =>
        activate(app, { key, email: SUBJECT, externalProvider: 'github', externalId }),
      ),
    );
    const winners = answers.filter((r) => r.status === 200);
    expect(winners).toHaveLength(1);
    expect(answers.filter((r) => r.status === 409)).toHaveLength(ids.length - 1);
    expect(ids).toContain((boundAccount(store, SUBJECT) as { id: string }).id);
  });
});

// Each row is a complete activation with SUBJECT's valid key and one thing wrong, so a server that
// activated before checking everything would show in the database.
const BAD_INPUT: [string, (key: string) => Fields, string][] = [
  ['no email', (key) => ({ key }), 'Email address is required'],
  [
    'an email that is a JSON array',
    (key) => ({ key, email: [SUBJECT] }),
    'Email must be a single text value',
  ],
  [
    'an email that is a JSON object',
    (key) => ({ key, email: { value: SUBJECT } }),
    'Email must be a single text value',
  ],
  ['an email that is a number', (key) => ({ key, email: 42 }), 'Email must be a single text value'],
  ['an invalid email', (key) => ({ key, email: 'not an address' }), 'Email address is invalid'],
  [
    'an email with a NUL',
    (key) => ({ key, email: `${SUBJECT}\u0000` }),
    'Email address is invalid',
  ],
  ['no key', () => ({ email: SUBJECT }), 'key: Required'],
  ['a blank key', () => ({ email: SUBJECT, key: '   ' }), 'key: Required'],
  ['a key that is a JSON array', (key) => ({ email: SUBJECT, key: [key] }), 'key: Required'],
  ['a key that is a JSON object', (key) => ({ email: SUBJECT, key: { key } }), 'key: Required'],
  [
    'a key over 200 characters',
    (key) => ({ email: SUBJECT, key: key.padEnd(201, 'x') }),
    'Invalid activation key',
  ],
  [
    'externalId without externalProvider',
    (key) => ({ key, email: SUBJECT, externalId: '42' }),
    'externalId and externalProvider go together',
  ],
  [
    'externalProvider without externalId',
    (key) => ({ key, email: SUBJECT, externalProvider: 'github' }),
    'externalId and externalProvider go together',
  ],
  [
    'externalEmail alone',
    (key) => ({ key, email: SUBJECT, externalEmail: 'a@b.co' }),
    'externalId and externalProvider go together',
  ],
  [
    'externalId that is a JSON array',
    (key) => ({ key, email: SUBJECT, externalProvider: 'github', externalId: ['42'] }),
    'externalId must be a single text value',
  ],
  [
    'externalId that is a JSON object',
    (key) => ({ key, email: SUBJECT, externalProvider: 'github', externalId: { id: '42' } }),
    'externalId must be a single text value',
  ],
  [
    'externalId that is a number',
    (key) => ({ key, email: SUBJECT, externalProvider: 'github', externalId: 42 }),
    'externalId must be a single text value',
  ],
  [
    'externalId that is null',
    (key) => ({ key, email: SUBJECT, externalProvider: 'github', externalId: null }),
    'externalId must be a single text value',
  ],
  [
    'externalId that is true',
    (key) => ({ key, email: SUBJECT, externalProvider: 'github', externalId: true }),
    'externalId must be a single text value',
  ],
  [
    'externalProvider that is a JSON array',
    (key) => ({ key, email: SUBJECT, externalProvider: ['github'], externalId: '42' }),
    'externalProvider must be a single text value',
  ],
  [
    'externalEmail that is a JSON object',
    (key) => ({ key, email: SUBJECT, ...A, externalEmail: { a: 1 } }),
    'externalEmail must be a single text value',
  ],
  [
    'externalId over 256 characters',
    (key) => ({ key, email: SUBJECT, externalProvider: 'github', externalId: 'x'.repeat(257) }),
    'externalId is invalid',
  ],
  [
    'a blank externalId',
    (key) => ({ key, email: SUBJECT, externalProvider: 'github', externalId: ' \t ' }),
    'externalId is invalid',
  ],
  [
    'externalId with a NUL',
    (key) => ({ key, email: SUBJECT, externalProvider: 'github', externalId: '42\u0000x' }),
    'externalId is invalid',
  ],
  [
    'externalId with a line break',
    (key) => ({ key, email: SUBJECT, externalProvider: 'github', externalId: '42\r\n43' }),
    'externalId is invalid',
  ],
  [
    'externalId with DEL',
    (key) => ({ key, email: SUBJECT, externalProvider: 'github', externalId: '42\u007fx' }),
    'externalId is invalid',
  ],
  [
    'externalProvider with a space',
    (key) => ({ key, email: SUBJECT, externalProvider: 'git hub', externalId: '42' }),
    'externalProvider is invalid',
  ],
  [
    'externalProvider with a slash',
    (key) => ({ key, email: SUBJECT, externalProvider: 'git/hub', externalId: '42' }),
    'externalProvider is invalid',
  ],
  [
    'externalProvider with a bell',
    (key) => ({ key, email: SUBJECT, externalProvider: 'git\u0007hub', externalId: '42' }),
    'externalProvider is invalid',
  ],
  [
    'externalProvider over 64 characters',
    (key) => ({ key, email: SUBJECT, externalProvider: 'p'.repeat(65), externalId: '42' }),
    'externalProvider is invalid',
  ],
  [
    'externalEmail over 254 characters',
    (key) => ({ key, email: SUBJECT, ...A, externalEmail: `${'a'.repeat(250)}@b.co` }),
    'externalEmail is invalid',
  ],
  [
    'externalEmail with a tab inside',
    (key) => ({ key, email: SUBJECT, ...A, externalEmail: 'a\t@b.co' }),
    'externalEmail is invalid',
  ],
];

describe('POST /api/subscription-activation: bad input', () => {
  async function preparedSite() {
    const { app, store } = site();
    await store.signups.add({ email: SUBJECT, description: '' });
    await store.signups.add({ email: HOLDER, description: '' });
    const key = await store.subscriptions.issueKey(SUBJECT);
    return { app, store, key };
  }

  it.each(BAD_INPUT)(
    'refuses %s with 400 and its message, and stores nothing',
    async (_case, body, error) => {
      const { app, store, key } = await preparedSite();
      const before = snapshot(store);
      const res = await request(app).post(ACTIVATION).send(body(key));
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual({ error });
      expect(snapshot(store)).toEqual(before);
    },
  );

  it.each([
    [
      'multipart',
      (r: request.Test, key: string) =>
        r
          .field('key', key)
          .field('email', SUBJECT)
          .field('externalProvider', 'github')
          .field('externalId', '1')
          .field('externalId', '2'),
    ],
    [
      'urlencoded',
      (r: request.Test, key: string) =>
        r
          .type('form')
          .send(
            `key=${encodeURIComponent(key)}&email=${encodeURIComponent(SUBJECT)}&externalProvider=github&externalId=1&externalId=2`,
          ),
    ],
    [
      'multipart with a nested name',
      (r: request.Test, key: string) =>
        r
          .field('key', key)
          .field('email', SUBJECT)
          .field('externalProvider', 'github')
          .field('externalId[a]', '1'),
    ],
  ])(
    'refuses a repeated or nested externalId sent as %s with 400, and stores nothing',
    async (_kind, send) => {
      const { app, store, key } = await preparedSite();
      const before = snapshot(store);
      const res = await send(request(app).post(ACTIVATION), key);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'externalId must be a single text value' });
      expect(snapshot(store)).toEqual(before);
    },
  );

  it.each([
    ['malformed JSON', 'application/json', '{"key":', 400],
    ['a JSON array', 'application/json', '[{"key":"k","email":"a@b.co"}]', 400],
    ['a JSON string', 'application/json', '"a@b.co"', 400],
    ['XML', 'application/xml', '<key/>', 415],
    ['urlencoded garbage', 'application/x-www-form-urlencoded', '%%%&&&==', 400],
    ['a boundary-less multipart body', 'multipart/form-data', 'key=x', 400],
  ])('answers %s with a 4xx JSON error and stores nothing', async (_case, type, body, status) => {
    const { app, store } = await preparedSite();
    const before = snapshot(store);
    const res = await request(app).post(ACTIVATION).set('Content-Type', type).send(body);
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: expect.any(String) });
    expect(snapshot(store)).toEqual(before);
  });

  it('answers other methods with 405 and Allow: POST', async () => {
    const { app } = await preparedSite();
    for (const method of ['get', 'put', 'delete', 'patch'] as const) {
      const res = await request(app)[method](ACTIVATION);
      expect({ method, status: res.status, allow: res.headers.allow }).toEqual({
        method,
        status: 405,
        allow: 'POST',
      });
    }
  });
});

describe('POST /api/subscription-activation: the log', () => {
  it('never names the address, the key, the account or its e-mail, whatever the outcome', async () => {
    const { logger, lines } = capturingLogger();
    const { app, store } = site({}, { logger });
    const email = 'zoe.logtest@mailbox.example';
    const secrets = {
      email,
      local: 'zoe.logtest',
      domain: 'mailbox.example',
      externalId: 'acct-7f3e9b',
      externalEmail: 'gh.private@users.example',
    };
    await store.signups.add({ email, description: '' });
    await store.signups.add({ email: HOLDER, description: '' });
    const key = await store.subscriptions.issueKey(email);
    const account = {
      externalProvider: 'github',
      externalId: secrets.externalId,
      externalEmail: secrets.externalEmail,
    };
    await activate(app, {
      key: await store.subscriptions.issueKey(HOLDER),
      email: HOLDER,
      externalProvider: 'github',
      externalId: 'holder-1',
    });

    const attempts: Record<string, string>[] = [
      { key, email, ...account }, // 200, binds
      { key, email, ...account }, // 200, repeat
      { key, email, externalProvider: 'github', externalId: 'holder-1' }, // 409 bound elsewhere
      { key: `${key}Z`, email, ...account }, // 404
      { key, email, externalId: secrets.externalId }, // 400 no provider
      { key, email: `${email}\u0007`, ...account }, // 400 bad address
      {
        key,
        email,
        externalProvider: 'git hub',
        externalId: secrets.externalId,
        externalEmail: secrets.externalEmail,
      }, // 400 provider
    ];
    const statuses = [];
    for (const fields of attempts) statuses.push((await activate(app, fields)).status);
    expect(statuses).toEqual([200, 200, 409, 404, 400, 400, 400]);
    const completed = () => lines.filter((line) => line.includes('"request completed"')).length;
    await until('every activation is logged', () => completed() >= statuses.length + 1);

    const log = lines.join('\n');
    const found = Object.entries({ ...secrets, key }).filter(([, value]) => log.includes(value));
    expect(found).toEqual([]);
  });
});

describe('POST /api/subscription-activation with BACKEND_URL', () => {
  it('relays the account fields to the backend and its answer back, storing nothing itself', async () => {
    const backend = await startBackend();
    try {
      backend.respondWith((_req, res) =>
        res.status(409).json({ error: 'bound elsewhere (backend)' }),
      );
      const { app, store } = site({ BACKEND_URL: backend.url });
      const fields = { key: 'backend-key-123', email: SUBJECT, ...A };
      const res = await activate(app, fields);
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ error: 'bound elsewhere (backend)' });
      expect(backend.received).toHaveLength(1);
      expect(backend.received[0]).toMatchObject({ method: 'POST', url: ACTIVATION, fields });
      expect(await store.signups.count()).toBe(0);
    } finally {
      await backend.close();
    }
  });
});
