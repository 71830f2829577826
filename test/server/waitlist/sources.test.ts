// Where a signup came from, through the doors of the signup operation: the API in its three
// encodings and the plain form record utm_source, utm_medium, utm_campaign and the referring
// site's host in the embedded store, bounded (64 printable characters, a host), never refusing a
// signup over them and never answering 5xx; a repeat keeps the first signup's. With BACKEND_URL the
// fields reach a real multer backend as they were sent, through the outbox too, and the site keeps
// nothing.
import request from 'supertest';
import type { Store } from '../../../server/store';
import { outboxSites } from '../../support/outbox-site';
import { encodings, formPost } from '../../support/signup-encodings';

const { site, backendOn, clock } = outboxSites();

/** The site storing signups itself (no BACKEND_URL), and its store. */
const embedded = () => site();

/** Each signup's address and the source fields it has, newest first. */
const sourcesOf = async (store: Store) =>
  (await store.signups.list()).map((row) => [
    row.email,
    Object.fromEntries(
      (['utm_source', 'utm_medium', 'utm_campaign', 'referrer'] as const)
        .filter((field) => row[field] !== null)
        .map((field) => [field, row[field]]),
    ),
  ]);

const SOURCE = {
  utm_source: 'hn',
  utm_medium: 'social',
  utm_campaign: 'launch week',
  referrer: 'news.ycombinator.com',
};

describe.each(Object.keys(encodings))('POST /api/subscriptions, %s', (encoding) => {
  const post = encodings[encoding];

  it('records the four fields, each that is given, and none when none is', async () => {
    const { app, store } = embedded();
    expect((await post(app, { email: 'ann@example.org', ...SOURCE })).status).toBe(201);
    expect((await post(app, { email: 'bob@example.org', utm_source: 'newsletter' })).status).toBe(
      201,
    );
    expect((await post(app, { email: 'cid@example.org', utm_medium: '' })).status).toBe(201);
    expect(await sourcesOf(store)).toEqual([
      ['cid@example.org', {}],
      ['bob@example.org', { utm_source: 'newsletter' }],
      ['ann@example.org', SOURCE],
    ]);
  });

  it('cuts, cleans or leaves out what a link got wrong, and takes the signup (201)', async () => {
    const { app, store } = embedded();
    const res = await post(app, {
      email: 'ann@example.org',
      utm_source: `  ${'s'.repeat(5_000)}`,
      utm_medium: 'e\u0000mail\u202e',
      utm_campaign: ' \u200b ',
      referrer: 'https://Lobste.RS/s/abc?token=secret',
    });
    expect(res.status).toBe(201);
    expect(await sourcesOf(store)).toEqual([
      [
        'ann@example.org',
        { utm_source: 's'.repeat(64), utm_medium: 'email', referrer: 'lobste.rs' },
      ],
    ]);
  });
});

describe('where a signup came from, in the embedded store', () => {
  it('takes a signup whose source fields are not text (JSON) or repeated, keeping none of them', async () => {
    const { app, store } = embedded();
    const json = await request(app)
      .post('/api/subscriptions')
      .send({
        email: 'ann@example.org',
        utm_source: ['a', 'b'],
        utm_medium: { $gt: '' },
        utm_campaign: 42,
        referrer: null,
      });
    expect(json.status).toBe(201);
    const repeated = await request(app)
      .post('/api/subscriptions')
      .field('email', 'bob@example.org')
      .field('utm_source', 'a')
      .field('utm_source', 'b')
      .field('referrer', 'not a host');
    expect(repeated.status).toBe(201);
    expect(await sourcesOf(store)).toEqual([
      ['bob@example.org', {}],
      ['ann@example.org', {}],
    ]);
  });

  it("keeps the first signup's source when the address signs up again from elsewhere", async () => {
    const { app, store } = embedded();
    await encodings.JSON(app, { email: 'Ann@example.org', utm_source: 'hn' });
    const repeat = await encodings.multipart(app, {
      email: 'ann@example.org',
      utm_source: 'reddit',
      referrer: 'reddit.com',
    });
    expect(repeat.status).toBe(201);
    expect(await sourcesOf(store)).toEqual([['Ann@example.org', { utm_source: 'hn' }]]);
  });

  it('the plain form records its hidden fields, and its refusal shows them again', async () => {
    const { app, store } = embedded();
    const refused = await formPost(app, { email: '', description: 'me', ...SOURCE });
    expect(refused.status).toBe(400);
    // The form again, carrying the same hidden fields: pressing Join again keeps the source.
    for (const [name, value] of Object.entries(SOURCE))
      expect(refused.text).toContain(`<input type="hidden" name="${name}" value="${value}"/>`);
    const joined = await formPost(app, { email: 'ann@example.org', description: 'me', ...SOURCE });
    expect(joined.status).toBe(303);
    expect(await sourcesOf(store)).toEqual([['ann@example.org', SOURCE]]);
  });
});

describe('with BACKEND_URL the backend owns where a signup came from', () => {
  it('the API forwards the fields as sent, an overlong one too, and the site keeps nothing', async () => {
    const backend = await backendOn();
    const { app, store } = site(backend.port);
    const long = 'x'.repeat(100);
    const res = await encodings.multipart(app, {
      email: 'ann@example.org',
      language: 'ru',
      ...SOURCE,
      utm_campaign: long,
    });
    expect(res.status).toBe(201);
    await encodings.JSON(app, { email: 'bob@example.org' });
    expect(backend.received.map((r) => r.fields)).toEqual([
      {
        email: 'ann@example.org',
        description: '',
        language: 'ru',
        ...SOURCE,
        utm_campaign: long,
      },
      { email: 'bob@example.org', description: '' },
    ]);
    expect(await store.signups.count()).toBe(0);
    expect(await store.outbox.depth()).toBe(0);
  });

  it('the plain form forwards its hidden fields unchanged, and keeps nothing', async () => {
    const backend = await backendOn();
    const { app, store } = site(backend.port);
    const res = await formPost(app, { email: 'ann@example.org', description: 'me', ...SOURCE });
    expect(res.status).toBe(303);
    expect(backend.received.map((r) => [r.url, r.fields])).toEqual([
      ['/api/subscriptions', { email: 'ann@example.org', description: 'me', ...SOURCE }],
    ]);
    expect(await store.signups.count()).toBe(0);
  });

  it('a signup the backend could not take yet reaches it later with the fields intact', async () => {
    const backend = await backendOn();
    backend.respondWith((_req, res) => res.status(503).end());
    const { app, store, worker } = site(backend.port);
    expect((await encodings.JSON(app, { email: 'ann@example.org', ...SOURCE })).status).toBe(202);
    expect(await store.outbox.depth()).toBe(1);
    backend.respondWith((_req, res) => res.status(201).json({}));
    const delivery = worker();
    clock.now = (await store.outbox.nextDueAt())!;
    await delivery.flush();
    await delivery.stop();
    expect(backend.received.at(-1)?.fields).toEqual({
      email: 'ann@example.org',
      description: '',
      ...SOURCE,
    });
    expect(await store.outbox.depth()).toBe(0);
    expect(await store.signups.count()).toBe(0);
  });
});
