// The console's second factor and audit log over HTTP, on both engines: a code logs in once,
// even when two replicas receive it at the same moment, and the audit page shows the client
// address each entry came from (behind a trusted proxy, the visitor's, not the proxy's).
import { TOTP } from 'otpauth';
import request from 'supertest';
import { createApp } from '../../../server/app';
import type { Store } from '../../../server/store/types';
import { testConfig } from '../../support/config';
import { addOperator, OPERATOR } from '../../support/console';
import { besideStore, describeEachEngine, type StoreEngine } from '../../support/stores';

const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
/** What a trusted reverse proxy on loopback adds: the visitor's address, reached over https. */
const PROXIED = { 'X-Forwarded-For': '203.0.113.7', 'X-Forwarded-Proto': 'https' };

const config = () => testConfig({ TRUST_PROXY: 'loopback', SITE_URL: 'https://orgnote.example' });

const loginWith = (app: ReturnType<typeof createApp>, code: string) =>
  request(app)
    .post('/admin/login')
    .set(PROXIED)
    .type('form')
    .send({ email: OPERATOR.email, password: OPERATOR.password, code });

function contract(engine: StoreEngine) {
  let store: Store;
  let app: ReturnType<typeof createApp>;
  beforeEach(async () => {
    store = await engine.open({ now: Date.now });
    app = createApp(config(), { store });
    await addOperator(store);
    await store.admins.setTotp(OPERATOR.email, SECRET);
  });

  it('logs in once with a code: the same code again is refused, as a failed login', async () => {
    const code = new TOTP({ secret: SECRET }).generate();
    expect((await loginWith(app, code)).status).toBe(303);
    const again = await loginWith(app, code);
    expect(again.status).toBe(401);
    expect(again.headers['set-cookie']).toBeUndefined();
    expect((await store.audit.list({ limit: 2 })).map((entry) => entry.action)).toEqual([
      'failed login',
      'login',
    ]);
  });

  it('lets one of two replicas log in with a code both receive at once', async () => {
    const replica = await besideStore(store, Date.now);
    try {
      const other = createApp(config(), { store: replica });
      const code = new TOTP({ secret: SECRET }).generate();
      const answers = await Promise.all([loginWith(app, code), loginWith(other, code)]);
      expect(answers.map((res) => res.status).sort()).toEqual([303, 401]);
    } finally {
      await replica.close();
    }
  });

  it('shows the client address of each entry on the audit page, and a dash for the CLI', async () => {
    await store.audit.record({ account: 'cli', action: 'admin add b@example.org', addresses: 0 });
    const login = await loginWith(app, new TOTP({ secret: SECRET }).generate());
    const cookie = String(login.headers['set-cookie']).split(';')[0];
    const page = await request(app).get('/admin/audit').set(PROXIED).set('Cookie', cookie);
    expect(page.status).toBe(200);
    const rows = [...page.text.matchAll(/<tr>(.*?)<\/tr>/g)].map((m) => m[1]).slice(1);
    const cell = (row: string, label: string) =>
      new RegExp(`<td data-label="${label}">(?:<[^>]+>)?([^<]*)`).exec(row)?.[1];
    expect(rows.map((row) => [cell(row, 'Action'), cell(row, 'Client address')])).toEqual([
      ['login', '203.0.113.7'],
      ['admin add b@example.org', '—'],
    ]);
  });
}

describeEachEngine(contract);
