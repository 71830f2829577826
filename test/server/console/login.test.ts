// The console's login over HTTP: off (404) without an account, a login form that works
// without JavaScript, the same answer for a wrong password and an unknown account, the throttle
// (429 with Retry-After, even for the right password), the session cookie's flags over http and
// https through the proxy, logout ending the session on the server, and the CSRF token.
import { TOTP } from 'otpauth';
import request from 'supertest';
import { createApp } from '../../../server/app';
import { hashPassword, PRODUCTION_COST, setPasswordCost } from '../../../server/console/password';
import { openSqliteStore } from '../../../server/store';
import type { SqliteStore } from '../../../server/store/sqlite';
import { testConfig } from '../../support/config';
import { TEST_COST } from '../../support/password-cost';

const PASSWORD = 'correct horse battery staple';
let store: SqliteStore;
let app: ReturnType<typeof createApp>;
beforeEach(() => {
  const config = testConfig({ TRUST_PROXY: 'loopback' });
  store = openSqliteStore(config);
  app = createApp(config, { store });
});
afterEach(() => store.close());
afterEach(() => setPasswordCost(TEST_COST));

const loginWith = (
  password: string,
  email = 'ops@example.org',
  headers: Record<string, string> = {},
) =>
  request(app).post('/admin/login').set(headers).type('form').send({ email, password, code: '' });

/** The answer's Set-Cookie header for the cookie `name` (or its __Host- form). */
const setCookie = (res: request.Response, name = 'orgnote-admin') =>
  (res.get('Set-Cookie') ?? []).find((header) =>
    header.replace(/^__Host-/, '').startsWith(`${name}=`),
  ) ?? '';

/** The session cookie's name=value, as a browser would send it back. */
const cookieOf = (res: request.Response) => setCookie(res).split(';')[0];

/** A Set-Cookie header as its name=value and its attributes in any order (Expires aside). */
const cookieParts = (header: string) => {
  const [pair, ...attributes] = header.split('; ');
  return { pair, attributes: attributes.filter((a) => !a.startsWith('Expires=')).sort() };
};

it('answers 404 on every /admin path while no account exists', async () => {
  for (const path of ['/admin', '/admin/login', '/admin/signups', '/admin/whatever']) {
    const res = await request(app).get(path);
    expect([path, res.status]).toEqual([path, 404]);
    expect(res.headers['cache-control']).toBe('no-store');
  }
  expect((await loginWith(PASSWORD)).status).toBe(404);
});

describe('with an account', () => {
  beforeEach(async () => {
    await store.admins.add('ops@example.org', await hashPassword(PASSWORD));
  });

  it('sends a visitor to a login form that needs no script, private and unindexed', async () => {
    const res = await request(app).get('/admin');
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/admin/login');
    const form = await request(app).get('/admin/login');
    expect(form.status).toBe(200);
    expect(form.headers['cache-control']).toBe('no-store');
    expect(form.headers['x-robots-tag']).toBe('noindex');
    expect(form.headers['content-security-policy']).toContain("script-src 'self'");
    expect(form.text).not.toContain('<script');
    for (const name of ['email', 'password', 'code']) expect(form.text).toContain(`name="${name}"`);
  });

  it('logs in with the right password, with an HttpOnly SameSite=Strict cookie, and out again on the server', async () => {
    const res = await loginWith(PASSWORD);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/admin');
    expect(cookieParts(setCookie(res))).toEqual({
      pair: expect.stringMatching(/^orgnote-admin=[\w-]{32}$/),
      attributes: ['HttpOnly', 'Max-Age=43200', 'Path=/', 'SameSite=Strict'],
    });
    // The browser is known to the account from now on, for 90 days (device-cookies.test.ts).
    expect(cookieParts(setCookie(res, 'orgnote-admin-device'))).toEqual({
      pair: expect.stringMatching(/^orgnote-admin-device=[\w-]+\.[\w-]+\.[\w-]{43}$/),
      attributes: ['HttpOnly', 'Max-Age=7776000', 'Path=/', 'SameSite=Strict'],
    });
    const cookie = cookieOf(res);
    const dashboard = await request(app).get('/admin').set('Cookie', cookie);
    expect(dashboard.status).toBe(200);
    expect(dashboard.text).toContain('Log out');
    const csrf = /name="csrf" value="([^"]+)"/.exec(dashboard.text)![1];

    // Without the token, logging out is refused; with it, the session ends on the server.
    expect(
      (await request(app).post('/admin/logout').set('Cookie', cookie).type('form').send({})).status,
    ).toBe(403);
    const out = await request(app)
      .post('/admin/logout')
      .set('Cookie', cookie)
      .type('form')
      .send({ csrf });
    expect(out.status).toBe(303);
    expect(String(out.headers['set-cookie'])).toContain('Max-Age=0');
    expect((await request(app).get('/admin').set('Cookie', cookie)).status).toBe(303);
    expect((await store.audit.list({ limit: 10 })).map((entry) => entry.action)).toEqual([
      'logout',
      'login',
    ]);
  });

  it('over https through the proxy, the cookie is Secure with the __Host- prefix', async () => {
    const res = await loginWith(PASSWORD, 'ops@example.org', { 'X-Forwarded-Proto': 'https' });
    expect(cookieParts(setCookie(res))).toEqual({
      pair: expect.stringMatching(/^__Host-orgnote-admin=[\w-]{32}$/),
      attributes: ['HttpOnly', 'Max-Age=43200', 'Path=/', 'SameSite=Strict', 'Secure'],
    });
    expect(cookieParts(setCookie(res, 'orgnote-admin-device'))).toMatchObject({
      pair: expect.stringMatching(/^__Host-orgnote-admin-device=/),
      attributes: ['HttpOnly', 'Max-Age=7776000', 'Path=/', 'SameSite=Strict', 'Secure'],
    });
    const cookie = cookieOf(res);
    expect(
      (await request(app).get('/admin').set('X-Forwarded-Proto', 'https').set('Cookie', cookie))
        .status,
    ).toBe(200);
  });

  it('answers a wrong password and an unknown account alike, with the same work, and records no typed address', async () => {
    // Each try from an address of its own (the site trusts its loopback proxy, which says https),
    // so the client throttle stays out of it; the account's own allows its five failures.
    let client = 0;
    // At production's cost, for the account's hash and so for the decoy: at the tests' own, the
    // hash is too cheap to tell the two answers apart from the rest of the request's work.
    setPasswordCost(PRODUCTION_COST);
    await store.admins.setPassword('ops@example.org', await hashPassword(PASSWORD));
    // The work is the CPU time the process spent on the answer (the hash runs on libuv's
    // threads, which cpuUsage counts too), not the wall time. On a machine busy with the rest of
    // the suite even that grows (the hash is 64 MiB of memory traffic): medians of 3 tries still
    // differed 3× for equal answers. The least of 5 tries of each, in turn, is the work itself.
    const timed = async (password: string, email: string) => {
      const started = process.cpuUsage();
      const res = await loginWith(password, email, {
        'X-Forwarded-For': `203.0.113.${++client}`,
        'X-Forwarded-Proto': 'https',
      });
      const used = process.cpuUsage(started);
      return {
        status: res.status,
        body: res.text.replace(/value="[^"]*@[^"]*"/, ''),
        ms: (used.user + used.system) / 1000,
      };
    };
    await timed('warm up the decoy hash', 'nobody0@example.org');
    const wrong: Awaited<ReturnType<typeof timed>>[] = [];
    const unknown: typeof wrong = [];
    for (let i = 1; i <= 5; i++) {
      wrong.push(await timed('wrong password here', 'ops@example.org'));
      unknown.push(await timed(PASSWORD, `nobody${i}@example.org`));
    }
    expect(new Set([...wrong, ...unknown].map((res) => res.status))).toEqual(new Set([401]));
    expect(new Set([...wrong, ...unknown].map((res) => res.body)).size).toBe(1);
    const least = (tries: typeof wrong) => Math.min(...tries.map((res) => res.ms));
    const [wrongMs, unknownMs] = [least(wrong), least(unknown)];
    expect(Math.abs(wrongMs - unknownMs)).toBeLessThan(Math.max(wrongMs, unknownMs) * 0.6);
    const audit = await store.audit.list({ limit: 20 });
    expect(audit.map((entry) => entry.account)).toEqual([
      ...wrong.flatMap(() => ['(unknown)', 'ops@example.org']),
      '(unknown)',
    ]);
    expect(JSON.stringify(audit)).not.toContain('nobody');
  });

  it('throttles after 5 failures in 15 minutes, then refuses even the right password with 429 and Retry-After', async () => {
    for (let i = 0; i < 5; i++) expect((await loginWith(`wrong password ${i}`)).status).toBe(401);
    const right = await loginWith(PASSWORD);
    expect(right.status).toBe(429);
    expect(Number(right.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(right.headers['retry-after'])).toBeLessThanOrEqual(15 * 60);
    expect(right.headers['set-cookie']).toBeUndefined();
    // The page says why, in the encoding asked for, and echoes nothing the attempt typed.
    expect(right.headers['content-encoding']).toBe('gzip');
    expect(right.text).toContain('Too many failed attempts. Try again later.');
    expect(right.text).not.toContain('ops@example.org');
  });

  it('counts an IPv6 client by its /56, as the forms do: new addresses in one network and new account names do not reset it', async () => {
    const from = (i: number) => ({
      'X-Forwarded-For': `2001:db8:1234:56${i.toString(16).padStart(2, '0')}::${i + 1}`,
      'X-Forwarded-Proto': 'https',
    });
    for (let i = 0; i < 5; i++)
      expect((await loginWith('guess', `nobody${i}@example.org`, from(i))).status).toBe(401);
    expect((await loginWith('guess', 'nobody5@example.org', from(5))).status).toBe(429);
    // Another network, and the account itself, are not held by it.
    expect(
      (
        await loginWith(PASSWORD, 'ops@example.org', {
          'X-Forwarded-For': '2001:db8:9999::1',
          'X-Forwarded-Proto': 'https',
        })
      ).status,
    ).toBe(303);
  });

  it('shows the dashboard: signups by state, mail and outbox, and a chart with its figures as text', async () => {
    await store.signups.add({ email: 'zoe@example.org', description: '' });
    const cookie = cookieOf(await loginWith(PASSWORD));
    const res = await request(app).get('/admin').set('Cookie', cookie);
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('<script');
    expect(res.text).toMatch(/<th scope="row">waitlisted<\/th><td>1<\/td>/);
    expect(res.text).toMatch(/<th scope="row">total<\/th><td>1<\/td>/);
    expect(res.text).toContain(
      '<svg viewBox="0 0 720 200" role="img" aria-labelledby="chart-title chart-summary">',
    );
    expect(res.text).toContain('In all: 1 signups, 0 invitations, 0 activations.');
    const today = new Date().toISOString().slice(0, 10);
    expect(res.text).toContain(
      `<tr><th scope="row">${today}</th><td>1</td><td>0</td><td>0</td></tr>`,
    );
  });

  it('shows the audit log, newest first, 50 a page, with a link to older entries', async () => {
    for (let i = 0; i < 55; i++)
      await store.audit.record({
        account: 'ops@example.org',
        action: `action ${String(i).padStart(2, '0')}`,
        addresses: i,
      });
    const cookie = cookieOf(await loginWith(PASSWORD));
    const first = await request(app).get('/admin/audit').set('Cookie', cookie);
    expect(first.status).toBe(200);
    const actions = (html: string) =>
      [...html.matchAll(/<td data-label="Action">(action \d+|login)<\/td>/g)].map((m) => m[1]);
    expect(actions(first.text)).toHaveLength(50);
    const older = /href="(\/admin\/audit\?before=[^"]+)"/
      .exec(first.text)![1]
      .replace(/&amp;/g, '&');
    const second = await request(app).get(older).set('Cookie', cookie);
    expect(actions(second.text)).toHaveLength(6);
    expect(new Set([...actions(first.text), ...actions(second.text)]).size).toBe(56);
    expect((await request(app).get('/admin/audit')).status).toBe(303);
  });

  it('needs the authenticator code once two-factor is enrolled, and counts a wrong code as a failure', async () => {
    await store.admins.setTotp('ops@example.org', 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP');
    const totp = new TOTP({ secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP' });
    const withCode = (code: string) =>
      request(app)
        .post('/admin/login')
        .type('form')
        .send({ email: 'ops@example.org', password: PASSWORD, code });
    expect((await withCode('')).status).toBe(401);
    const wrong = String((Number(totp.generate()) + 1) % 1_000_000).padStart(6, '0');
    expect((await withCode(wrong)).status).toBe(401);
    const res = await withCode(totp.generate());
    expect(res.status).toBe(303);
    expect((await store.audit.list({ limit: 3 })).map((entry) => entry.action)).toEqual([
      'login',
      'failed login',
      'failed login',
    ]);
  });

  it('holds under a burst of 100 attempts at once: at most 5 passwords are checked, the rest get 429', async () => {
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => loginWith(`wrong password ${i}`)),
    );
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(95);
    expect((await loginWith(PASSWORD)).status).toBe(429);
  });

  it('keeps /admin out of the sitemap', async () => {
    const sitemap = await request(app).get('/sitemap.xml');
    expect(sitemap.status).toBe(200);
    expect(sitemap.text).toContain('<loc>');
    expect(sitemap.text).not.toContain('/admin');
  });

  it('refuses a login form posted from another site', async () => {
    expect(
      (await loginWith(PASSWORD, 'ops@example.org', { Origin: 'https://evil.example' })).status,
    ).toBe(403);
  });
});
