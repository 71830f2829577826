// The waitlist form without JavaScript: a native multipart POST to /?index, checked with the
// browser's rules and messages, recorded like the API, answered with 303 → the joined view.
import express from 'express';
import { redirect, type RouteObject } from 'react-router';
import request from 'supertest';
import { createApp } from '../../../server/app';
import { publicConfigOf } from '../../../server/config';
import { readBody, readFields } from '../../../server/http/body';
import { createMetrics } from '../../../server/metrics';
import { createRenderer } from '../../../server/pages/render';
import { loadPageAssets } from '../../../server/pages/static-files';
import { openSqliteStore } from '../../../server/store';
import { closedPort, startBackend } from '../../support/backend';
import { capturingLogger, testConfig } from '../../support/config';

function embedded() {
  const config = testConfig();
  const store = openSqliteStore(config);
  return { app: createApp(config, { store }), store };
}

const post = (app: ReturnType<typeof createApp>) => request(app).post('/?index');

describe('native waitlist form POST', () => {
  it('records a valid submission and redirects with 303 to the joined view', async () => {
    const { app, store } = embedded();
    const res = await post(app)
      .field('email', 'zoë@example.org')
      .field('description', 'github.com/zoe');
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/?joined');
    expect(await store.signups.list()).toEqual([
      expect.objectContaining({ email: 'zoë@example.org', description: 'github.com/zoe' }),
    ]);

    const joined = await request(app).get(res.headers.location);
    expect(joined.status).toBe(200);
    expect(joined.text).toContain(
      'You are successfully joined to the wait list. Want to get your invitation faster?',
    );
    expect(joined.text).toContain('>Join patreon</a>');
    expect(joined.text).not.toContain('name="email"');
  });

  it('re-renders the form with status 400, the product §5 messages and what the visitor typed', async () => {
    const { app, store } = embedded();
    const res = await post(app).field('email', '').field('description', '');
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.text).toContain('Email address is required');
    expect(res.text).toContain('>Required<');
    expect(res.text).toMatch(/<input[^>]*aria-invalid="true"[^>]*name="email"/);
    expect(await store.signups.count()).toBe(0);

    const typed = await post(app)
      .field('email', 'not an email')
      .field('description', 'I love <org>');
    expect(typed.status).toBe(400);
    expect(typed.text).toMatch(
      /<input[^>]*aria-invalid="true"[^>]*autofocus=""[^>]*name="email"[^>]*value="not an email"/,
    );
    expect(typed.text).toContain('I love &lt;org&gt;</textarea>');
    expect(await store.signups.count()).toBe(0);
  });

  it('applies the store limits with a message on the field', async () => {
    const { app, store } = embedded();
    const res = await post(app).field('email', 'a@b.co').field('description', 'x'.repeat(2001));
    expect(res.status).toBe(400);
    expect(res.text).toContain('Description is longer than 2000 characters');
    expect(await store.signups.count()).toBe(0);
  });

  it('accepts urlencoded posts too (older browsers, curl)', async () => {
    const { app, store } = embedded();
    const res = await post(app).type('form').send('email=a%40b.co&description=me');
    expect(res.status).toBe(303);
    expect(await store.signups.count()).toBe(1);
  });

  it('refuses a file part with 4xx JSON and stores nothing', async () => {
    const { app, store } = embedded();
    const res = await post(app).field('email', 'a@b.co').attach('f', Buffer.from('x'), 'x.txt');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'File uploads are not accepted' });
    expect(await store.signups.count()).toBe(0);
  });

  it('shows a browser that posted something unacceptable an HTML page with a way back', async () => {
    const { app } = embedded();
    const res = await post(app)
      .set('Accept', 'text/html,application/xhtml+xml,*/*;q=0.8')
      .field('email', 'a@b.co')
      .attach('f', Buffer.from('x'), 'x.txt');
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.text).toContain('File uploads are not accepted');
    expect(res.text).toContain('<a href="/">Back to the waitlist</a>');
  });

  it('forwards to the backend as the API does, and queues when the backend is down', async () => {
    const port = await closedPort();
    const config = testConfig({ BACKEND_URL: `http://127.0.0.1:${port}` });
    const store = openSqliteStore(config);
    const app = createApp(config, { store });

    const queued = await post(app).field('email', 'a@b.co').field('description', 'while down');
    expect(queued.status).toBe(303);
    expect((await store.outbox.all()).map((i) => [i.request.path, i.request.fields])).toEqual([
      [
        '/api/subscriptions',
        [
          ['email', 'a@b.co'],
          ['description', 'while down'],
        ],
      ],
    ]);

    const backend = await startBackend(port);
    try {
      const sent = await post(app).field('email', 'c@d.co').field('description', 'while up');
      expect(sent.status).toBe(303);
      expect(backend.received.map((r) => [r.url, r.fields])).toEqual([
        ['/api/subscriptions', { email: 'c@d.co', description: 'while up' }],
      ]);
    } finally {
      await backend.close();
      void store.close();
    }
  });

  it('only accepts POST on the landing page', async () => {
    const { app } = embedded();
    expect((await request(app).post('/activate').field('email', 'a@b.co')).status).toBe(405);
  });

  it('requires a description on the form, as the page does, while the API takes none', async () => {
    const { app, store } = embedded();
    const res = await post(app).field('email', 'a@b.co').field('description', '');
    expect(res.status).toBe(400);
    expect(res.text).toContain('>Required<');
    expect(res.text).toMatch(/<input[^>]*name="email"[^>]*value="a@b.co"/);
    expect(res.text).not.toMatch(/<input[^>]*aria-invalid="true"[^>]*name="email"/);
    expect(await store.signups.count()).toBe(0);

    const api = await request(app).post('/api/subscriptions').field('email', 'a@b.co');
    expect(api.status).toBe(201);
    expect(await store.signups.count()).toBe(1);
  });

  it("is checked by the signup operation, so its refusals are counted as the API's are", async () => {
    const config = testConfig();
    const metrics = createMetrics({ pending: { outbox: () => 0, mail: () => 0 } });
    const app = createApp(config, { store: openSqliteStore(config), metrics });
    expect((await post(app).field('email', '').field('description', '')).status).toBe(400);
    expect((await request(app).post('/api/subscriptions').field('email', '')).status).toBe(400);
    expect(await metrics.text()).toMatch(/^signups_total\{outcome="refused"\} 2$/m);
  });
});

describe("a route's action reads the form from its request", () => {
  /**
   * A page whose action echoes what request.formData() gave it (in its redirect), behind the site's
   * body parsing.
   */
  function echoSite() {
    const routes: RouteObject[] = [
      {
        path: '/',
        action: async ({ request }) =>
          redirect(
            `/?${new URLSearchParams([...(await request.formData())].map(([k, v]) => [k, typeof v === 'string' ? v : v.name]))}`,
          ),
        Component: () => null,
      },
    ];
    const renderer = createRenderer({
      assets: loadPageAssets(),
      publicConfig: publicConfigOf(testConfig()),
      logger: capturingLogger().logger,
      siteUrl: 'https://orgnote.example',
      pagePolicy: () => "default-src 'none'",
      routes,
    });
    return express().post('/', readBody, readFields, renderer.streamPage);
  }

  it.each([
    [
      'multipart',
      (r: request.Test) =>
        r.field('email', 'a@b.co').field('email', 'c@d.co').field('description', 'zoë & me'),
    ],
    [
      'urlencoded',
      (r: request.Test) =>
        r.type('form').send('email=a%40b.co&email=c%40d.co&description=zo%C3%AB+%26+me'),
    ],
    ['JSON', (r: request.Test) => r.send({ email: ['a@b.co', 'c@d.co'], description: 'zoë & me' })],
  ])('%s: the same fields, in order, repeats kept', async (_encoding, send) => {
    const res = await send(request(echoSite()).post('/'));
    expect(res.status).toBe(302);
    expect([...new URL(res.headers.location, 'http://x').searchParams]).toEqual([
      ['email', 'a@b.co'],
      ['email', 'c@d.co'],
      ['description', 'zoë & me'],
    ]);
  });
});
