// /admin/signups/import: the upload is read as a dry run first, and its report's form imports the
// same file only (chosen again: nothing is kept between the two requests); a file over 20 MB gets
// the console's 413 page and stores nothing; the upload needs a session and the form's token; the
// confirmation mails imported rows wait for are asked for from the same page. Through
// createApp with supertest, on a real SQLite store.
import request from 'supertest';
import { createApp } from '../../../server/app';
import { IMPORT_MAX_BYTES } from '../../../server/console/routes/import';
import { openSqliteStore, type SqliteStore } from '../../../server/store';
import { testConfig } from '../../support/config';
import { addOperator, getAs, logIn, postAs, type Session } from '../../support/console';
import { listmonkExport } from '../../../scripts/lib/import-files';

let store: SqliteStore;
let app: ReturnType<typeof createApp>;
let session: Session;

beforeEach(async () => {
  const config = testConfig({ SITE_URL: 'https://orgnote.example' });
  store = openSqliteStore(config);
  app = createApp(config, { store });
  await addOperator(store);
  session = await logIn(app);
});
afterEach(() => store.close());

const FILE = listmonkExport([
  { email: 'ann@example.org', name: 'Ann, "A"', status: 'enabled', createdAt: '2024-01-01Z' },
  { email: 'bob@example.org', status: 'disabled', createdAt: '2024-01-02T00:00:00Z' },
  { email: 'spam@example.org', status: 'blocklisted', createdAt: '2024-01-03T00:00:00Z' },
]);

/** The upload form as the browser posts it: the token, the fields, the file. */
function upload(fields: Record<string, string>, file: Buffer | string, name = 'list.csv') {
  let req = request(app).post('/admin/signups/import').set('Cookie', session.cookie);
  for (const [field, value] of Object.entries({ csrf: session.csrf, ...fields }))
    req = req.field(field, value);
  return req.attach('file', Buffer.from(file), { filename: name, contentType: 'text/csv' });
}

/** The hidden `seen` of the report's import form. */
const seenIn = (html: string) => /name="seen" value="([^"]+)"/.exec(html)![1];

describe('importing from the console', () => {
  it('offers the upload from the signups page', async () => {
    const signups = await getAs(app, session, '/admin/signups');
    expect(signups.text).toContain('href="/admin/signups/import"');
    const page = await getAs(app, session, '/admin/signups/import');
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/enctype="multipart\/form-data"/i);
    expect(page.text).toContain('Imported and not confirmed yet: 0.');
  });

  it('shows the dry run first, storing nothing, then imports that file', async () => {
    const check = await upload({ step: 'check' }, FILE);
    expect(check.status).toBe(200);
    expect(check.text).toContain('What the file holds');
    expect(check.text).toContain('listmonk&#x27;s subscriber export, 3 row(s)');
    expect(check.text).toMatch(/would be added<\/th><td>2<\/td><td>lines 2, 3<\/td>/);
    expect(check.text).toContain('Import 2 row(s)');
    expect(await store.signups.count()).toBe(0);
    expect(await store.suppressions.count()).toBe(0);

    const done = await upload({ step: 'import', seen: seenIn(check.text) }, FILE);
    expect(done.status).toBe(200);
    expect(done.text).toContain('Imported 2 row(s)');
    expect(await store.signups.count()).toBe(2);
    expect(await store.suppressions.has('spam@example.org')).toBe(true);
    const [entry] = await store.audit.list({ limit: 1 });
    expect(entry).toMatchObject({
      account: 'ops@example.org',
      action:
        'import "list.csv" (listmonk): 2 added, 0 already there, 0 suppressed, 1 refused, ' +
        '0 with errors',
      addresses: 2,
    });
    expect(entry.action).not.toContain('@');
  });

  it('imports nothing when the file is not the one checked, and shows its report instead', async () => {
    const check = await upload({ step: 'check' }, FILE);
    const other = FILE.replace('ann@', 'anne@');
    const refused = await upload({ step: 'import', seen: seenIn(check.text) }, other);
    expect(refused.status).toBe(409);
    expect(refused.text).toContain('This is not the file checked before; nothing was imported.');
    // The same file with another choice is another import too.
    const unconfirmed = await upload(
      { step: 'import', seen: seenIn(check.text), unconfirmed: '1' },
      FILE,
    );
    expect(unconfirmed.status).toBe(409);
    expect(await store.signups.count()).toBe(0);
  });

  it('refuses a file over 20 MB with its own page, storing nothing', async () => {
    const big = Buffer.alloc(IMPORT_MAX_BYTES + 1, 'a');
    const response = await upload({ step: 'check' }, big);
    expect(response.status).toBe(413);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.text).toContain('The file is too large');
    expect(response.text).toContain('waitlist import &lt;file.csv&gt;');
    expect(await store.signups.count()).toBe(0);
    // 20 MB exactly is read (and found to be no CSV: one line far past a record's size).
    const most = await upload({ step: 'check' }, Buffer.alloc(IMPORT_MAX_BYTES, 'a'));
    expect(most.status).toBe(400);
    expect(most.text).toContain('Not a CSV file this import reads');
  });

  it('says what is wrong with a file that is no CSV, or no file at all', async () => {
    const png = await upload({ step: 'check' }, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0x0a]));
    expect(png.status).toBe(400);
    expect(png.text).toContain('Nothing was stored: its first line is not UTF-8 text.');
    const none = await request(app)
      .post('/admin/signups/import')
      .set('Cookie', session.cookie)
      .field('csrf', session.csrf)
      .field('step', 'check');
    expect(none.status).toBe(400);
    expect(none.text).toContain('Choose a CSV file to import.');
  });

  it('needs a session and the form’s token before it reads an upload', async () => {
    const anonymous = await request(app)
      .post('/admin/signups/import')
      .field('step', 'check')
      .attach('file', Buffer.from(FILE), 'list.csv');
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.location).toBe('/admin/login');
    const forged = await request(app)
      .post('/admin/signups/import')
      .set('Cookie', session.cookie)
      .field('csrf', 'forged')
      .attach('file', Buffer.from(FILE), 'list.csv');
    expect(forged.status).toBe(403);
    expect(await store.signups.count()).toBe(0);
  });

  it('asks for the confirmation mails imported rows wait for, all or one', async () => {
    const check = await upload({ step: 'check', unconfirmed: '1' }, FILE);
    await upload({ step: 'import', seen: seenIn(check.text), unconfirmed: '1' }, FILE);
    const page = await getAs(app, session, '/admin/signups/import');
    expect(page.text).toContain('Imported and not confirmed yet: 2.');
    const one = await postAs(app, session, '/admin/signups/import/resend', {
      email: 'ann@example.org',
    });
    expect(one.text).toContain('ann@example.org is due a confirmation mail');
    const all = await postAs(app, session, '/admin/signups/import/resend', { email: '' });
    expect(all.text).toContain('1 imported address(es) are due a confirmation mail');
    expect(await store.signups.confirmationsDue()).toBe(2);
    const unknown = await postAs(app, session, '/admin/signups/import/resend', {
      email: 'zed@example.org',
    });
    expect(unknown.status).toBe(404);
  });
});
