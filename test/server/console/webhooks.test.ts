// /admin/webhooks on both engines: each endpoint by its name, with its state (enabled, failing,
// disabled and why) and its last deliveries, of its URL only the scheme and host (a path, a query
// string or user:password may be the receiver's token), no secret; Replay and Send test through
// the CLI's operations, answered with a redirect back and a notice, audited with the console
// account; a POST without the session's CSRF token changes nothing.
import request from 'supertest';
import { createApp } from '../../../server/app';
import type { Store } from '../../../server/store/types';
import { testConfig } from '../../support/config';
import { addOperator, getAs, logIn, OPERATOR, postAs, type Session } from '../../support/console';
import { describeEachEngine, type StoreEngine } from '../../support/stores';

const START = Date.parse('2026-03-01T00:00:00.000Z');
const MINUTE = 60_000;

function consolePage(engine: StoreEngine) {
  let time: number;
  let store: Store;
  let app: ReturnType<typeof createApp>;
  let session: Session;

  beforeEach(async () => {
    time = START;
    store = await engine.open({ now: () => time });
    app = createApp(testConfig({ SITE_URL: 'https://orgnote.example' }), { store });
    await addOperator(store);
    session = await logIn(app);
  });

  /** Three endpoints: one delivering, one failing for an hour, one disabled by a 410. */
  async function threeEndpoints() {
    const enabled = await store.webhooks.add({
      url: 'https://hooks.zapier.com/hooks/catch/1234567/abcdefg/?token=s3cret-of-the-chat',
      name: 'Zapier',
      events: ['signup.created', 'invitation.sent'],
      withAddress: false,
    });
    const failing = await store.webhooks.add({
      url: 'https://bot:pa55word@crm.example/in',
      name: 'CRM <sales>',
      events: [],
      withAddress: true,
    });
    // Stored before endpoints had names.
    const gone = await store.webhooks.add({
      url: 'https://old.example/services/T0ORG/B0NOTE/abcdefghijklmnopqrstuvwx',
      events: [],
      withAddress: false,
    });
    for (const endpoint of [enabled, failing, gone]) await store.webhooks.test(endpoint.id);
    for (const delivery of await store.webhooks.claim(10)) {
      if (delivery.endpointId === enabled.id)
        await store.webhooks.delivered(delivery, { status: 204, durationMs: 42 });
      else if (delivery.endpointId === failing.id)
        await store.webhooks.failed(delivery, {
          durationMs: 15_000,
          error: 'timed out after 15000 ms',
        });
      else
        await store.webhooks.failed(delivery, {
          status: 410,
          durationMs: 7,
          error: 'status 410',
          disable: 'the receiver answered 410 Gone',
        });
    }
    // A while later, within the session's idle time.
    time += 10 * MINUTE;
    return { enabled, failing, gone };
  }

  /** The text of the endpoint's section of the page, tags dropped. */
  const sectionOf = (html: string, id: string) => {
    const start = html.indexOf(`aria-labelledby="endpoint-${id}"`);
    const end = html.indexOf('</section>', start);
    expect(start).toBeGreaterThan(-1);
    return html
      .slice(start, end)
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ');
  };

  it('lists each endpoint by name with its state and its last deliveries, and never a path, a query string or a secret', async () => {
    const { enabled, failing, gone } = await threeEndpoints();
    const page = await getAs(app, session, '/admin/webhooks');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<a href="/admin/webhooks">Webhooks</a>');

    const on = sectionOf(page.text, enabled.id);
    expect(on).toMatch(/^[^>]*> Zapier https:\/\/hooks\.zapier\.com Enabled /);
    expect(on).toContain('Enabled');
    expect(on).toContain('signup.created, invitation.sent');
    expect(on).toContain('no addresses');
    expect(on).toMatch(/webhook\.test msg_\S+ 2026-03-01 00:00 delivered 1 204 42 ms/);

    const late = sectionOf(page.text, failing.id);
    expect(late).toContain('CRM &lt;sales&gt; https://crm.example Failing');
    expect(late).toContain('Failing since 2026-03-01 00:00');
    expect(late).toContain('receives addresses');
    // Pending, its next attempt 5 s (±10 %) after the first: within the same minute.
    expect(late).toMatch(/pending 1 15000 ms timed out after 15000 ms 2026-03-01 00:00/);

    const off = sectionOf(page.text, gone.id);
    expect(off).toContain(
      `Unnamed endpoint https://old.example Name it with waitlist webhooks rename ${gone.id} ` +
        '--name … . Disabled',
    );
    expect(off).toContain('Disabled since 2026-03-01 00:00 : the receiver answered 410 Gone');
    expect(off).toMatch(/given up 1 410 7 ms status 410/);

    for (const hidden of [
      's3cret-of-the-chat',
      'token=',
      '/hooks/catch',
      '1234567',
      'abcdefg',
      'pa55word',
      'bot:',
      '/services',
      'T0ORG',
      'whsec_',
    ])
      expect(page.text).not.toContain(hidden);
  });

  it('replays and tests from the page, answering with a redirect back and a notice, each audited', async () => {
    const { gone } = await threeEndpoints();
    const [given] = await store.webhooks.deliveries(gone.id, 1);

    const replayed = await postAs(app, session, '/admin/webhooks/replay', { id: gone.id });
    expect(replayed.status).toBe(303);
    const back = await getAs(app, session, replayed.headers.location);
    expect(back.text).toContain(
      `<p role="status">1 delivery of ${gone.id} queued again. The endpoint is enabled again.</p>`,
    );
    expect(sectionOf(back.text, gone.id)).toContain('Enabled');
    expect(await store.webhooks.get(gone.id)).toMatchObject({ disabledAt: null });
    const again = (await store.webhooks.claim(10)).find((d) => d.endpointId === gone.id);
    expect(again).toMatchObject({ id: given.id, payload: given.payload, attempts: 0 });

    const tested = await postAs(app, session, '/admin/webhooks/test', { id: gone.id });
    expect(tested.status).toBe(303);
    expect((await getAs(app, session, tested.headers.location)).text).toContain(
      `A webhook.test event is queued for ${gone.id}; the running site sends it.`,
    );
    expect((await store.webhooks.deliveries(gone.id, 10)).length).toBe(2);

    const unknown = await postAs(app, session, '/admin/webhooks/replay', { id: 'ep_nothing' });
    expect(unknown.status).toBe(404);
    expect(unknown.text).toContain('There is no such webhook endpoint.');

    const audit = await store.audit.list({ limit: 20 });
    // Both at the same instant of the store's clock: compared in any order.
    const actions = audit
      .filter((entry) => entry.action.startsWith('webhooks'))
      .map(({ account, action, client }) => ({ account, action, client }))
      .sort((a, b) => a.action.localeCompare(b.action));
    expect(actions).toEqual([
      {
        account: OPERATOR.email,
        action: `webhooks replay ${gone.id} https://old.example`,
        client: '127.0.0.1',
      },
      {
        account: OPERATOR.email,
        action: `webhooks test ${gone.id} https://old.example`,
        client: '127.0.0.1',
      },
    ]);
  });

  it('refuses a POST without the session or its CSRF token, and changes nothing', async () => {
    const { gone } = await threeEndpoints();
    const noToken = await request(app)
      .post('/admin/webhooks/replay')
      .set('Cookie', session.cookie)
      .type('form')
      .send({ id: gone.id });
    expect(noToken.status).toBe(403);
    const wrongToken = await postAs(
      app,
      { ...session, csrf: 'x'.repeat(session.csrf.length) },
      '/admin/webhooks/replay',
      { id: gone.id },
    );
    expect(wrongToken.status).toBe(403);
    const noSession = await request(app)
      .post('/admin/webhooks/test')
      .type('form')
      .send({ csrf: session.csrf, id: gone.id });
    // Off to the login page, as every console path without a session.
    expect(noSession.headers.location).toBe('/admin/login');

    expect((await store.webhooks.get(gone.id))!.disabledAt).not.toBeNull();
    expect(await store.webhooks.deliveries(gone.id, 10)).toHaveLength(1);
    const audit = await store.audit.list({ limit: 20 });
    expect(audit.filter((entry) => entry.action.startsWith('webhooks'))).toEqual([]);
  });
}

describeEachEngine(consolePage);
