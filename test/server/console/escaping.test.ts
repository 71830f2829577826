// Every value that reaches a console page from outside (an address, "about me", the search text, a
// mail's target and last error, an outbox item, audit entries, what was typed at the login) is
// markup in disguise here. Parsed as a browser parses it, each page shows it as text: no element,
// no attribute comes of it.
import { JSDOM } from 'jsdom';
import request from 'supertest';
import { createApp } from '../../../server/app';
import { hashPassword } from '../../../server/console/password';
import { openSqliteStore } from '../../../server/store';
import type { SqliteStore } from '../../../server/store/sqlite';
import { testConfig } from '../../support/config';
import { getAs, postAs, type Session } from '../../support/console';
import { composeInvitation } from '../../support/stores';

/** Each value closes a quote or a tag, opens an element with a handler, and carries an entity. */
const HOSTILE = `<script>alert(1)</script><img src=x onerror="alert(2)">"' &amp; &`;
const hostile = (what: string) => `${what}${HOSTILE}`;
const ADDRESS = hostile('who@example.org');
/** An address the mailer takes (no <, > or "): its entities still decode if written as markup. */
const MAILABLE = `o'hara&amp&lt&gt'@example.org`;
const OPERATOR = { email: hostile('ops@example.org'), password: 'correct horse battery staple' };

let store: SqliteStore;
let app: ReturnType<typeof createApp>;
let session: Session;

beforeAll(async () => {
  const config = testConfig({ SITE_URL: 'https://orgnote.example' });
  store = openSqliteStore(config);
  app = createApp(config, { store });
  await store.admins.add(OPERATOR.email, await hashPassword(OPERATOR.password));
  await store.signups.add({ email: ADDRESS, description: hostile('about me') });
  // A dead mail to the address, with a last error from the SMTP server.
  const invited = await store.subscriptions.invite(ADDRESS, {
    again: false,
    compose: composeInvitation,
  });
  if (invited.outcome !== 'invited') throw new Error(invited.outcome);
  await store.mail.failed(invited.mail.id, hostile('550 mail error'));
  await store.signups.add({ email: MAILABLE, description: '' });
  // An outbox item whose path and last error came from elsewhere.
  await store.outbox.enqueue({
    path: hostile('/api/subscriptions'),
    fields: [['email', ADDRESS]],
    forwarded: {},
    idempotencyKey: 'k-1',
  });
  await store.outbox.failed((await store.outbox.all())[0], hostile('status 503'));
  await store.audit.record({
    account: hostile('account'),
    action: hostile('action'),
    addresses: 1,
    client: hostile('client'),
  });

  const login = await request(app)
    .post('/admin/login')
    .type('form')
    .send({ ...OPERATOR, code: '' });
  expect(login.status).toBe(303);
  const cookie = String(login.headers['set-cookie']).split(';')[0];
  const dashboard = await request(app).get('/admin').set('Cookie', cookie);
  const csrf = new JSDOM(dashboard.text).window.document.querySelector<HTMLInputElement>(
    'input[name=csrf]',
  )!.value;
  session = { cookie, csrf };
});
afterAll(() => store.close());

/** The names of every attribute the page's elements carry, from a clean console page. */
const ATTRIBUTES = new Set(
  [
    'action',
    'aria-describedby',
    'aria-hidden',
    'aria-label',
    'aria-labelledby',
    'autocomplete',
    'charset',
    'class',
  ]
    .concat([
      'colspan',
      'content',
      'data-label',
      'datetime',
      'fill',
      'focusable',
      'for',
      'height',
      'href',
      'id',
    ])
    .concat([
      'inputmode',
      'lang',
      'max',
      'method',
      'min',
      'name',
      'pattern',
      'points',
      'required',
      'role',
      'rx',
    ])
    .concat([
      'scope',
      'selected',
      'stroke',
      'stroke-width',
      'type',
      'value',
      'viewbox',
      'width',
      'x1',
      'x2',
      'y1',
      'y2',
    ]),
);

/** The page as a browser's DOM, after checking nothing of the values became markup. */
function parsed(html: string): Document {
  const { document } = new JSDOM(html).window;
  expect(document.querySelectorAll('script, img').length).toBe(0);
  const names = [...document.querySelectorAll('*')].flatMap((element) =>
    [...element.attributes].map((a) => a.name),
  );
  expect(names.filter((name) => !ATTRIBUTES.has(name.toLowerCase()))).toEqual([]);
  return document;
}

/** The text a reader sees in the page's main part and header. */
const shown = (document: Document) => document.body.textContent ?? '';

const get = (path: string) => getAs(app, session, path);
const post = (path: string, fields: Record<string, string>) => postAs(app, session, path, fields);

/** A console page the operator opens (200), parsed once nothing of the values became markup. */
async function pageAt(path: string): Promise<Document> {
  const res = await get(path);
  expect(res.status).toBe(200);
  return parsed(res.text);
}

/** The text of the page's table cell with this label. */
const cell = (page: Document, label: string) =>
  page.querySelector(`td[data-label="${label}"]`)!.textContent;

it('shows the account on the dashboard as text', async () => {
  const page = await pageAt('/admin');
  expect(page.querySelector('.console-account')!.textContent).toBe(OPERATOR.email);
  expect(page.title).toBe('Dashboard · OrgNote console');
});

it('shows addresses and "about me" in the signups list as text, and in its forms as values', async () => {
  const page = await pageAt('/admin/signups');
  const cells = [...page.querySelectorAll('td')].map((td) => td.textContent);
  expect(cells).toEqual(expect.arrayContaining([ADDRESS, hostile('about me')]));
  const emails = [...page.querySelectorAll<HTMLInputElement>('input[name=email]')].map(
    (input) => input.value,
  );
  expect(emails).toContain(ADDRESS);
});

it("keeps the search text as the search field's value", async () => {
  const page = await pageAt(`/admin/signups?q=${encodeURIComponent(HOSTILE)}`);
  expect(page.querySelector<HTMLInputElement>('#q')!.value).toBe(HOSTILE);
  const cells = [...page.querySelectorAll('td[data-label=Address]')].map((td) => td.textContent);
  expect(cells).toEqual([ADDRESS]);
});

it('asks to remove the address by its text', async () => {
  const res = await post('/admin/signups/remove/confirm', { email: ADDRESS });
  expect(res.status).toBe(200);
  const page = parsed(res.text);
  expect(page.querySelector('h1')!.textContent).toBe(`Remove ${ADDRESS}?`);
  expect(page.querySelector('button.button-primary')!.textContent).toBe(`Remove ${ADDRESS}`);
  expect(page.querySelector<HTMLInputElement>('main input[name=email]')!.value).toBe(ADDRESS);
});

it('lists who "Invite the next N" would invite as text', async () => {
  const page = await pageAt('/admin/signups/next?n=5');
  expect([...page.querySelectorAll('main li')].map((li) => li.textContent)).toEqual([MAILABLE]);
});

it("shows a mail's target and last error as text", async () => {
  const page = await pageAt('/admin/mail');
  expect(cell(page, 'To')).toBe(ADDRESS);
  expect(cell(page, 'Last error')).toBe(hostile('550 mail error'));
});

it("shows an outbox item's path and last error as text", async () => {
  const page = await pageAt('/admin/outbox');
  expect(cell(page, 'Path')).toBe(hostile('/api/subscriptions'));
  expect(cell(page, 'Last error')).toContain(hostile('status 503'));
});

it('shows audit entries as text', async () => {
  const page = await pageAt('/admin/audit');
  const rows = [...page.querySelectorAll('tbody tr')].map((tr) =>
    [...tr.querySelectorAll('td')].map((td) => td.textContent),
  );
  expect(rows).toContainEqual([
    expect.any(String),
    hostile('account'),
    hostile('action'),
    '1',
    hostile('client'),
  ]);
});

it('gives back what was typed at the login, with the error, as text and value', async () => {
  const res = await request(app)
    .post('/admin/login')
    .type('form')
    .send({ email: ADDRESS, password: HOSTILE, code: HOSTILE });
  expect(res.status).toBe(401);
  const page = parsed(res.text);
  expect(page.querySelector('#login-error')!.textContent).toBe('Wrong address, password or code.');
  expect(page.querySelector<HTMLInputElement>('#email')!.value).toBe(ADDRESS);
  expect(shown(page)).not.toContain('alert(');
});
