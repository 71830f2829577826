// The console over https or on loopback only: with an https SITE_URL its cookie is always
// __Host- and Secure; a page asked over plain http by a client that is not loopback is sent to
// SITE_URL, a form post refused, each with a page that says why; ALLOWED_ORIGINS partners cannot
// post to it. Loopback over plain http (an ssh tunnel) keeps working.
import request from 'supertest';
import { createApp } from '../../../server/app';
import { openSqliteStore, type Store } from '../../../server/store';
import { capturingLogger, testConfig } from '../../support/config';
import { addOperator, OPERATOR } from '../../support/console';

const SITE = 'https://orgnote.example';
const PARTNER = 'https://partner.example';
/** A client the loopback proxy (TRUST_PROXY's default) forwards for, over plain http. */
const FAR_OVER_HTTP = { 'X-Forwarded-For': '203.0.113.7' };

const opened: Store[] = [];
afterEach(() => Promise.all(opened.splice(0).map((store) => store.close())));

async function site(env: Record<string, string> = {}) {
  const { logger, lines } = capturingLogger();
  const config = testConfig({ TRUST_PROXY: 'loopback', ...env });
  const store = openSqliteStore(config);
  opened.push(store);
  await addOperator(store);
  return { store, lines, app: createApp(config, { store, logger }) };
}

type App = Awaited<ReturnType<typeof site>>['app'];

const logIn = (app: App, headers: Record<string, string> = {}) =>
  request(app)
    .post('/admin/login')
    .set(headers)
    .type('form')
    .send({ email: OPERATOR.email, password: OPERATOR.password, code: '' });

const SAYS_WHY = [/needs https/, /SITE_URL/, /TRUST_PROXY/, /docker run -p/];

it('with an https SITE_URL, sets a __Host- Secure cookie even over plain http on loopback', async () => {
  const { app } = await site({ SITE_URL: SITE });
  const res = await logIn(app);
  expect(res.status).toBe(303);
  const setCookie = String(res.headers['set-cookie']);
  expect(setCookie).toMatch(/^__Host-orgnote-admin=[\w-]{32};/);
  expect(setCookie.split('; ')).toEqual(expect.arrayContaining(['Secure', 'HttpOnly']));
  // The browser sends it back on the tunnel, and the console reads it there.
  const cookie = setCookie.split(';')[0];
  expect((await request(app).get('/admin').set('Cookie', cookie)).status).toBe(200);
  // The cookie without the prefix is not the session's.
  const plain = cookie.replace('__Host-', '');
  expect((await request(app).get('/admin').set('Cookie', plain)).status).toBe(303);
});

it('sends a page asked over plain http from afar to SITE_URL, and says why', async () => {
  const { app, lines } = await site({ SITE_URL: SITE });
  for (const path of ['/admin', '/admin/login', '/admin/signups?q=zoe&order=oldest']) {
    const res = await request(app).get(path).set(FAR_OVER_HTTP);
    expect([path, res.status, res.headers.location]).toEqual([path, 308, `${SITE}${path}`]);
    for (const words of SAYS_WHY) expect(res.text).toMatch(words);
    expect(res.headers['cache-control']).toBe('no-store');
  }
  const head = await request(app).head('/admin/login').set(FAR_OVER_HTTP);
  expect([head.status, head.headers.location]).toEqual([308, `${SITE}/admin/login`]);
  // Said once in the log, naming both settings.
  const warnings = lines.filter((line) => line.includes('console-plain-http'));
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toMatch(/SITE_URL.*TRUST_PROXY/);
});

it('refuses a login posted over plain http from afar: no session, no cookie', async () => {
  const { app, store } = await site({ SITE_URL: SITE });
  const res = await logIn(app, FAR_OVER_HTTP);
  expect(res.status).toBe(403);
  expect(res.headers['set-cookie']).toBeUndefined();
  for (const words of SAYS_WHY) expect(res.text).toMatch(words);
  expect(res.text).toContain(`href="${SITE}/admin"`);
  expect(await store.audit.list({ limit: 10 })).toEqual([]);
});

it('without an https SITE_URL, refuses a page from afar over plain http too, with the same reasons', async () => {
  const { app } = await site();
  const res = await request(app).get('/admin/login').set(FAR_OVER_HTTP);
  expect(res.status).toBe(403);
  expect(res.headers.location).toBeUndefined();
  for (const words of SAYS_WHY) expect(res.text).toMatch(words);
});

it('answers a client from afar through a trusted proxy that says https', async () => {
  const { app } = await site({ SITE_URL: SITE });
  const overHttps = { ...FAR_OVER_HTTP, 'X-Forwarded-Proto': 'https' };
  expect((await request(app).get('/admin/login').set(overHttps)).status).toBe(200);
  const res = await logIn(app, overHttps);
  expect(res.status).toBe(303);
  const cookie = String(res.headers['set-cookie']).split(';')[0];
  expect((await request(app).get('/admin').set(overHttps).set('Cookie', cookie)).status).toBe(200);
});

it('still shows nothing of the console while no account exists', async () => {
  const config = testConfig({ SITE_URL: SITE });
  const store = openSqliteStore(config);
  opened.push(store);
  const res = await request(createApp(config, { store })).get('/admin').set(FAR_OVER_HTTP);
  expect(res.status).toBe(404);
});

it('does not let the ALLOWED_ORIGINS partners post to the console, only to the API', async () => {
  const { app } = await site({ SITE_URL: SITE, ALLOWED_ORIGINS: PARTNER });
  const fromPartner = await logIn(app, { Origin: PARTNER });
  expect(fromPartner.status).toBe(403);
  expect(fromPartner.headers['set-cookie']).toBeUndefined();
  expect((await logIn(app, { Origin: SITE })).status).toBe(303);
  const signup = await request(app)
    .post('/api/subscriptions')
    .set('Origin', PARTNER)
    .send({ email: 'zoe@example.org', description: '' });
  expect(signup.status).toBeLessThan(300);
});
