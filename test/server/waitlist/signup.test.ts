// The signup operation (server/waitlist/signup.ts): whichever handler it comes through (the API
// in any of its three encodings, the native form) and whenever it is sent (at once, or later from
// the outbox), the backend gets the same request: the checked fields as multipart, the visitor's
// X-Forwarded-* and one Idempotency-Key. Checked against a real multer backend on 127.0.0.1.
import request from 'supertest';
import { checkSignup, HONEYPOT_FIELD } from '../../../shared/form-checks';
import { closedPort, type Received } from '../../support/backend';
import { outboxSites } from '../../support/outbox-site';
import { encodings } from '../../support/signup-encodings';

const { clock, site: outboxSite, backendOn } = outboxSites();

/** The site in front of BACKEND_URL on `port` (or, without one, in embedded mode). */
const site = (backendPort?: number) => outboxSite(backendPort, 2000);

const TYPED = { email: '  Zoë@Example.org  ', description: 'about me' };
/** What the backend must get for TYPED: the address trimmed, the honeypot gone. */
const CHECKED = { email: 'Zoë@Example.org', description: 'about me' };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const ENCODINGS = Object.keys(encodings);

/** What a received request must keep the same through every handler and on every attempt. */
function essentials(received: Received) {
  return {
    method: received.method,
    url: received.url,
    fields: received.fields,
    contentType: received.headers['content-type']?.split(';')[0],
    'x-forwarded-for': received.headers['x-forwarded-for'],
    'x-forwarded-proto': received.headers['x-forwarded-proto'],
    'x-forwarded-host': received.headers['x-forwarded-host'],
    'idempotency-key': received.headers['idempotency-key'],
  };
}

describe('the signup operation: what the backend receives', () => {
  describe.each(ENCODINGS)('from the API, %s', (encoding) => {
    it.each([
      { from: 'a direct client', xff: undefined, chain: '127.0.0.1' },
      // supertest connects from 127.0.0.1, which TRUST_PROXY=loopback trusts to name the client.
      {
        from: 'a client behind a trusted proxy',
        xff: '203.0.113.7',
        chain: '203.0.113.7, 127.0.0.1',
      },
    ])(
      '$from: the checked fields as multipart, the address chain, an Idempotency-Key; the answer relayed',
      async ({ xff, chain }) => {
        const backend = await backendOn();
        const { app, store } = site(backend.port);
        const req = encodings[encoding](app, { ...TYPED, [HONEYPOT_FIELD]: '' });
        const res = await (xff ? req.set('X-Forwarded-For', xff) : req);

        expect(res.status).toBe(201);
        expect(res.body).toEqual({ ok: true, path: '/api/subscriptions' }); // the backend's own answer
        expect(backend.received.map(essentials)).toEqual([
          {
            method: 'POST',
            url: '/api/subscriptions',
            fields: CHECKED,
            contentType: 'multipart/form-data',
            'x-forwarded-for': chain,
            'x-forwarded-proto': 'http',
            'x-forwarded-host': expect.stringMatching(/^127\.0\.0\.1:\d+$/),
            'idempotency-key': expect.stringMatching(UUID),
          },
        ]);
        expect(await store.outbox.depth()).toBe(0);
      },
    );
  });

  it('gives every signup its own Idempotency-Key', async () => {
    const backend = await backendOn();
    const { app } = site(backend.port);
    await encodings.JSON(app, TYPED);
    await encodings.JSON(app, TYPED);
    const [first, second] = backend.received.map((r) => r.headers['idempotency-key']);
    expect(first).toMatch(UUID);
    expect(second).toMatch(UUID);
    expect(first).not.toBe(second);
  });
});

describe('a filled honeypot', () => {
  const BOT = { ...TYPED, [HONEYPOT_FIELD]: 'http://spam' };

  it.each(ENCODINGS)(
    '%s, with a backend: answered like a signup, nothing sent or queued',
    async (encoding) => {
      const backend = await backendOn();
      const { app, store } = site(backend.port);
      const res = await encodings[encoding](app, BOT);
      expect([res.status, res.body]).toEqual([201, { email: CHECKED.email }]);
      expect(backend.received).toEqual([]);
      expect(await store.outbox.depth()).toBe(0);
    },
  );

  it.each(ENCODINGS)('%s, embedded: answered like a signup, nothing stored', async (encoding) => {
    const { app, store } = site();
    const res = await encodings[encoding](app, BOT);
    expect([res.status, res.body]).toEqual([201, { email: CHECKED.email }]);
    expect(await store.signups.count()).toBe(0);
  });
});

describe('the outbox sends what the first attempt sent', () => {
  // A visitor behind the site's reverse proxy, posting to a path with a query.
  const viaProxy = (req: request.Test) =>
    req
      .set('X-Forwarded-For', '203.0.113.7')
      .set('X-Forwarded-Proto', 'https')
      .set('X-Forwarded-Host', 'orgnote.example');

  it('a 503 then a retry: both attempts carry the same fields, path, X-Forwarded-* and Idempotency-Key', async () => {
    const backend = await backendOn();
    let calls = 0;
    backend.respondWith((_req, res) => res.status(++calls === 1 ? 503 : 201).json({}));
    const { app, store, worker } = site(backend.port);

    const res = await viaProxy(
      request(app)
        .post('/api/subscriptions?source=landing')
        .field('email', TYPED.email)
        .field('description', TYPED.description)
        .field(HONEYPOT_FIELD, ''),
    );
    expect(res.status).toBe(202);
    expect(await store.outbox.depth()).toBe(1);

    const delivery = worker();
    clock.now = (await store.outbox.nextDueAt())!;
    await delivery.flush();
    await delivery.stop();

    expect(await store.outbox.depth()).toBe(0);
    const [first, retry] = backend.received.map(essentials);
    expect(backend.received).toHaveLength(2);
    expect(first).toEqual({
      method: 'POST',
      url: '/api/subscriptions?source=landing',
      fields: CHECKED,
      contentType: 'multipart/form-data',
      'x-forwarded-for': '203.0.113.7, 127.0.0.1',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'orgnote.example',
      'idempotency-key': expect.stringMatching(UUID),
    });
    expect(retry).toEqual(first);
  });

  it('down when the signup arrives: delivered later with the request the visitor made', async () => {
    const port = await closedPort();
    const { app, store, worker } = site(port);

    const res = await viaProxy(encodings.urlencoded(app, { ...TYPED, [HONEYPOT_FIELD]: '' }));
    expect([res.status, res.body]).toEqual([202, { queued: true }]);
    const key = (await store.outbox.all())[0].request.idempotencyKey;

    const backend = await backendOn(port);
    const delivery = worker();
    clock.now = (await store.outbox.nextDueAt())!;
    await delivery.flush();
    await delivery.stop();

    expect(backend.received.map(essentials)).toEqual([
      {
        method: 'POST',
        url: '/api/subscriptions',
        fields: CHECKED,
        contentType: 'multipart/form-data',
        'x-forwarded-for': '203.0.113.7, 127.0.0.1',
        'x-forwarded-proto': 'https',
        'x-forwarded-host': 'orgnote.example',
        'idempotency-key': key,
      },
    ]);
    expect(key).toMatch(UUID);
    expect(await store.outbox.depth()).toBe(0);
  });
});

describe('the native form takes the same operation', () => {
  it('delivers the same checked fields with the address chain and an Idempotency-Key, then 303 → /?joined', async () => {
    const backend = await backendOn();
    const { app, store } = site(backend.port);
    const res = await request(app)
      .post('/?index')
      .field('email', TYPED.email)
      .field('description', TYPED.description)
      .field(HONEYPOT_FIELD, '');

    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/?joined');
    expect(backend.received.map(essentials)).toEqual([
      {
        method: 'POST',
        url: '/api/subscriptions',
        fields: CHECKED,
        contentType: 'multipart/form-data',
        'x-forwarded-for': '127.0.0.1',
        'x-forwarded-proto': 'http',
        'x-forwarded-host': expect.stringMatching(/^127\.0\.0\.1:\d+$/),
        'idempotency-key': expect.stringMatching(UUID),
      },
    ]);
    expect(await store.outbox.depth()).toBe(0);
  });
});

describe('validation errors name their field', () => {
  /**
   * The message shown under a field of the re-rendered form (TextField: aria-describedby → <p id>).
   */
  function messageUnder(html: string, name: string): string | undefined {
    const control = html.match(
      new RegExp(`<(?:input|textarea)\\b[^>]*\\bname="${name}"[^>]*>`),
    )?.[0];
    const describedBy = control?.match(/aria-describedby="([^"]+)"/)?.[1];
    if (!describedBy) return undefined;
    return html.match(new RegExp(`<p id="${describedBy}"[^>]*>([^<]*)</p>`))?.[1];
  }
  const isInvalid = (html: string, name: string) =>
    new RegExp(`<(?:input|textarea)\\b[^>]*aria-invalid="true"[^>]*\\bname="${name}"`).test(html);

  it.each([
    {
      problem: 'an over-long description (2001 characters; 2000 allowed)',
      email: 'a@b.co',
      description: 'x'.repeat(2001),
      field: 'description',
      other: 'email',
      message: 'Description is longer than 2000 characters',
    },
    // Passes the browser's pattern (no whitespace) but not the server's check: the server's field
    // comes back.
    {
      problem: 'a control character in the address',
      email: 'a\u0001b@example.org',
      description: 'me',
      field: 'email',
      other: 'description',
      message: 'Email address is invalid',
    },
  ])(
    'native form, $problem: a 400 page with the message under $field',
    async ({ email, description, field, other, message }) => {
      const { app, store } = site();
      const res = await request(app)
        .post('/?index')
        .field('email', email)
        .field('description', description)
        .field(HONEYPOT_FIELD, '');
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(messageUnder(res.text, field)).toBe(message);
      expect(isInvalid(res.text, field)).toBe(true);
      expect(isInvalid(res.text, other)).toBe(false);
      expect(messageUnder(res.text, other)).toBeUndefined();
      expect(await store.signups.count()).toBe(0);
    },
  );

  it('native form, an address that does not match the pattern: the email field is marked, with no message (product §5)', async () => {
    const { app } = site();
    const res = await request(app)
      .post('/?index')
      .field('email', 'not an email')
      .field('description', 'me');
    expect(res.status).toBe(400);
    expect(isInvalid(res.text, 'email')).toBe(true);
    expect(messageUnder(res.text, 'email')).toBeUndefined();
    expect(isInvalid(res.text, 'description')).toBe(false);
  });

  it.each([
    { input: 'no address', fields: {}, field: 'email' },
    { input: 'an address off the pattern', fields: { email: 'not an email' }, field: 'email' },
    { input: 'two addresses', fields: { email: ['a@b.co', 'c@d.co'] }, field: 'email' },
    {
      input: 'an address over 254 characters',
      fields: { email: `${'x'.repeat(250)}@b.co` },
      field: 'email',
    },
    { input: 'a NUL in the address', fields: { email: 'a\u0000b@c.de' }, field: 'email' },
    {
      input: 'a bad address and a bad description',
      fields: { email: 'not an email', description: 'x'.repeat(2001) },
      field: 'email',
    },
    {
      input: 'a description over 2000 characters',
      fields: { email: 'a@b.co', description: 'x'.repeat(2001) },
      field: 'description',
    },
    {
      input: 'two descriptions',
      fields: { email: 'a@b.co', description: ['one', 'two'] },
      field: 'description',
    },
    {
      input: 'a control character in the description',
      fields: { email: 'a@b.co', description: 'bell \u0007' },
      field: 'description',
    },
    {
      input: 'U+FFFD in the description',
      fields: { email: 'a@b.co', description: 'broken \ufffd' },
      field: 'description',
    },
  ])('checkSignup with $input refuses with field $field', ({ fields, field }) => {
    const checked = checkSignup(fields);
    expect(checked.ok).toBe(false);
    expect(!checked.ok && checked.field).toBe(field);
    expect(!checked.ok && checked.error).toEqual(expect.any(String));
  });

  it("checkSignup marks every field at once, as the page's form shows them (product §5)", () => {
    const checked = checkSignup(
      { email: 'not an email', description: '' },
      { descriptionRequired: true },
    );
    expect(checked).toEqual({
      ok: false,
      field: 'email',
      error: 'Email address is invalid',
      errors: { email: '', description: 'Required' },
      problem: { code: 'email-mismatch' },
    });
    expect(checkSignup({ email: 'a@b.co' }).ok).toBe(true);
  });

  it('checkSignup accepts the longest description and trims the address', () => {
    expect(checkSignup({ email: '  a@b.co\t', description: 'x'.repeat(2000) })).toEqual({
      ok: true,
      value: { email: 'a@b.co', description: 'x'.repeat(2000) },
    });
  });
});
