// '/privacy' says where addresses go: the names of the webhook endpoints added --with-address, as
// the CLI adds, renames and removes them from another process, on both engines, and nothing of
// their URLs, not even the host. Every page embeds the names in its public config, so a change
// renders every prerendered page again.
import request from 'supertest';
import { createApp } from '../../../server/app';
import type { Store } from '../../../server/store/types';
import { addWebhook, removeWebhook, renameWebhook } from '../../../server/waitlist/webhooks';
import { capturingLogger, testConfig } from '../../support/config';
import { besideStore, describeEachEngine, type StoreEngine } from '../../support/stores';

const TODAY =
  'Only the people who run this site. It is not given or sold to anyone else, and the site has ' +
  'no tracking, analytics or advertising.';
const naming = (names: string, language: 'en' | 'ru' = 'en') =>
  language === 'en'
    ? 'The people who run this site, and the services they send your e-mail address to when you ' +
      `join the waitlist or your place on it changes: ${names}. It is not given or sold to ` +
      'anyone else, and the site has no tracking, analytics or advertising.'
    : 'Администраторы сайта, а также сервисы, которым они передают ваш адрес электронной ' +
      'почты, когда вы записываетесь в лист ожидания или когда ваше место в нём меняется: ' +
      `${names}. Больше никому данные не передаются и не продаются, а на сайте нет ни ` +
      'отслеживания, ни аналитики, ни рекламы.';

const CLI = { account: 'cli' };
const OUR_CRM = { names: ['Our CRM'], unnamed: 0 };

/** The "Who sees it" paragraph of a page's HTML. */
function whoSeesIt(html: string, heading = 'Who sees it'): string | undefined {
  return new RegExp(`<h2>${heading}</h2><p>([^<]*)</p>`).exec(html)?.[1];
}

/** The public config a page embeds for hydration. */
function embeddedConfig(html: string): Record<string, unknown> {
  const json = /<script id="public-config" type="application\/json">([^<]*)<\/script>/.exec(html);
  return JSON.parse(json![1]) as Record<string, unknown>;
}

function contract(engine: StoreEngine) {
  let store: Store;
  /** The CLI: another process, with a store of its own on the same database. */
  let cli: Store;

  beforeEach(async () => {
    store = await engine.open({ now: Date.now });
    cli = await besideStore(store, Date.now);
  });
  afterEach(() => cli.close());

  function site(env: Record<string, string> = {}) {
    const { logger, lines } = capturingLogger();
    const app = createApp(testConfig({ SITE_URL: 'https://orgnote.example', ...env }), {
      store,
      logger,
      recipientsMaxAgeMs: 0,
    });
    return { app, lines };
  }

  const add = async (url: string, withAddress: boolean, name?: string) => {
    // Endpoints are listed in the order they were added, to the millisecond: one at a time.
    await new Promise((resolve) => setTimeout(resolve, 2));
    const added = await addWebhook({ store: cli, config: { webhooksAllowPrivate: false } }, CLI, {
      url,
      name,
      events: [],
      withAddress,
    });
    if (added.kind !== 'added') throw new Error(added.kind);
    return added.id;
  };

  /** An endpoint as the release before names stored it: the store's add, with no name. */
  const addUnnamed = async (url: string) => {
    await new Promise((resolve) => setTimeout(resolve, 2));
    return (await cli.webhooks.add({ url, events: [], withAddress: true })).id;
  };

  it('says only the operators see the data while no endpoint receives addresses', async () => {
    const { app } = site();
    expect(whoSeesIt((await request(app).get('/privacy')).text)).toBe(TODAY);
    await add('https://chat.example.com/hooks/orgnote', false);
    const res = await request(app).get('/privacy');
    expect(res.status).toBe(200);
    expect(whoSeesIt(res.text)).toBe(TODAY);
    expect(res.text.includes('chat.example.com')).toBe(false);
  });

  it('names an endpoint added --with-address by its name, nothing of its URL, not even the host, and stops once it is removed', async () => {
    const { app } = site();
    const before = await request(app).get('/privacy');
    expect(whoSeesIt(before.text)).toBe(TODAY);

    // A per-endpoint host: anyone who knows it can post to the receiver.
    const id = await add(
      'https://eo1a2b3c4d5e6f7.m.pipedream.net/incoming/T0k3nPath?key=s3cretQuery',
      true,
      'Our CRM',
    );
    // The page kept from the first request is not served again.
    const named = await request(app).get('/privacy').set('If-None-Match', before.headers.etag);
    expect(named.status).toBe(200);
    expect(named.headers.etag).not.toBe(before.headers.etag);
    expect(whoSeesIt(named.text)).toBe(naming('Our CRM'));
    expect(embeddedConfig(named.text).addressRecipients).toEqual(OUR_CRM);
    const leaked = ['eo1a2b3c4d5e6f7', 'pipedream', '/incoming', 'T0k3nPath', 's3cretQuery'].filter(
      (part) => named.text.includes(part),
    );
    expect(leaked).toEqual([]);
    // Every page embeds the public config, so every kept page follows too.
    const landing = await request(app).get('/');
    expect(embeddedConfig(landing.text).addressRecipients).toEqual(OUR_CRM);

    expect(await removeWebhook({ store: cli }, CLI, id)).toBe(true);
    const removed = await request(app).get('/privacy');
    expect(whoSeesIt(removed.text)).toBe(TODAY);
    expect(removed.text.includes('Our CRM')).toBe(false);
    expect(embeddedConfig((await request(app).get('/')).text).addressRecipients).toEqual({
      names: [],
      unnamed: 0,
    });
  });

  it('calls endpoints stored before names "a service of theirs", counted by host, until they are renamed', async () => {
    const { app } = site();
    await add('https://hooks.example.com/a', true, 'Sheet');
    const crm = await addUnnamed('https://eo1a2b3c4d5e6f7.m.pipedream.net/');
    const page = await request(app).get('/privacy');
    expect(whoSeesIt(page.text)).toBe(naming('Sheet and a service of theirs'));
    expect(page.text.includes('pipedream')).toBe(false);

    // Two catch hooks of one service are one service; another host is another.
    await addUnnamed('https://hooks.zapier.com/hooks/catch/1234567/abcdefg/');
    await addUnnamed('https://hooks.zapier.com/hooks/catch/1234567/hijklmn/');
    const three = await request(app).get('/privacy');
    expect(whoSeesIt(three.text)).toBe(naming('Sheet and 2 services of theirs'));
    expect(['pipedream', 'zapier', '1234567'].filter((part) => three.text.includes(part))).toEqual(
      [],
    );

    // Russian words the count itself: «ещё» after names, the plural form of the number.
    expect(whoSeesIt((await request(app).get('/ru/privacy')).text, 'Кто видит эти данные')).toBe(
      naming('Sheet и ещё 2\u00a0сервиса', 'ru'),
    );

    expect(await renameWebhook({ store: cli }, CLI, crm, 'Our CRM')).toEqual({ kind: 'renamed' });
    expect(whoSeesIt((await request(app).get('/privacy')).text)).toBe(
      naming('Sheet, Our CRM, and a service of theirs'),
    );
  });

  it('lists several names once each, a disabled endpoint among them, on pages rendered per request too', async () => {
    const { app } = site();
    await add('https://hooks.example.com/a', true, 'Hooks');
    await add('https://crm.example.org/in', true, 'CRM');
    await add('https://hooks.example.com/b', true, 'Hooks');
    const gone = await add('https://sheet.example.net/rows', true, 'Sheet');
    await add('https://chat.example.com/room', false, 'Chat');
    // A 410 disables an endpoint; it still receives addresses once replayed.
    await store.webhooks.test(gone);
    const [delivery] = await store.webhooks.claim(1);
    await store.webhooks.failed(delivery, {
      status: 410,
      durationMs: 3,
      error: 'HTTP 410',
      disable: 'the receiver answered 410 Gone',
    });
    expect((await cli.webhooks.get(gone))?.disabledAt).not.toBeNull();

    const expected = naming('Hooks, CRM, and Sheet');
    expect(whoSeesIt((await request(app).get('/privacy')).text)).toBe(expected);
    // A query string makes the page one rendered for this request.
    const perRequest = await request(app).get('/privacy?from=footer');
    expect(perRequest.headers['cache-control']).toBe('private, no-store');
    expect(whoSeesIt(perRequest.text)).toBe(expected);
  });

  it('keeps the names it knew when the store cannot be read, logs it once, and still answers', async () => {
    const { app, lines } = site();
    await add('https://hooks.example.com/in', true, 'Hooks');
    expect(whoSeesIt((await request(app).get('/privacy')).text)).toBe(naming('Hooks'));
    await store.close();
    for (const path of ['/privacy', '/privacy', '/privacy?again']) {
      const res = await request(app).get(path);
      expect(res.status).toBe(200);
      expect(whoSeesIt(res.text)).toBe(naming('Hooks'));
    }
    expect(lines.filter((line) => line.includes('webhook endpoints unreadable'))).toHaveLength(1);
  });
}

describeEachEngine(contract);
