// A NUL or another control character where an address, a search or a cursor goes: never part of
// one, and PostgreSQL refuses a NUL in text outright, so before the check such input was a 500 on
// that engine. Now: a 4xx on both engines, and nothing stored changes.
import request from 'supertest';
import { createApp } from '../../../server/app';
import type { Store } from '../../../server/store/types';
import { testConfig } from '../../support/config';
import { addOperator, logIn, OPERATOR } from '../../support/console';
import { describeEachEngine, ENGINES } from '../../support/stores';

const NUL_ADDRESS = 'a\u0000b@example.org';

afterAll(() => Promise.all(ENGINES.map((engine) => engine.close())));

describeEachEngine((engine) => {
  const run = engine.unavailable ? it.skip : it;
  let store: Store;
  let app: ReturnType<typeof createApp>;
  beforeEach(async () => {
    store = await engine.open({ now: Date.now });
    app = createApp(testConfig({ SITE_URL: 'https://orgnote.example' }), { store });
    await store.signups.add({ email: 'kept@example.org', description: 'stays' });
  });
  afterEach(() => engine.closeStores());

  run('/leave refuses the address with its form error, and erases nothing', async () => {
    const res = await request(app).post('/leave').type('form').send({ email: NUL_ADDRESS });
    expect(res.status).toBe(400);
    expect(res.text).toContain('This is not an email address');
    expect(await store.signups.count()).toBe(1);
  });

  run(
    'the console refuses it in its login, searches, cursors and forms, and keeps working',
    async () => {
      await addOperator(store);
      const badLogin = await request(app)
        .post('/admin/login')
        .type('form')
        .send({ email: 'ops\u0000@example.org', password: OPERATOR.password, code: '' });
      expect(badLogin.status).toBe(400);

      const { cookie, csrf } = await logIn(app);
      const get = (path: string) => request(app).get(path).set('Cookie', cookie);

      for (const path of [
        '/admin/signups?q=a%00b',
        '/admin/signups?after=%00%7C1',
        '/admin/audit?before=%00',
      ]) {
        const res = await get(path);
        expect({ path, status: res.status }).toEqual({ path, status: 400 });
        expect(res.text).toContain('That contains characters that are not text.');
      }
      for (const path of ['/admin/signups/remove/confirm', '/admin/signups/remove']) {
        const res = await request(app)
          .post(path)
          .set('Cookie', cookie)
          .type('form')
          .send({ csrf, email: 'kept\u0000@example.org' });
        expect({ path, status: res.status }).toEqual({ path, status: 400 });
      }

      expect(await store.signups.count()).toBe(1);
      const list = await get('/admin/signups?q=kept');
      expect(list.status).toBe(200);
      expect(list.text).toContain('kept@example.org');
    },
  );
}, 'on $name');
