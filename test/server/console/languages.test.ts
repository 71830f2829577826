// What the console shows of a signup's language: a Language column and a filter on /admin/signups
// (a plain GET form, combined with the search and the state), the counts by language on the
// dashboard, and the CSV export's `language` column, eighth, so the columns before keep their
// places.
import { createApp } from '../../../server/app';
import { openSqliteStore } from '../../../server/store';
import type { SqliteStore } from '../../../server/store/sqlite';
import { testConfig } from '../../support/config';
import { addOperator, getAs, logIn, type Session } from '../../support/console';

let store: SqliteStore;
let app: ReturnType<typeof createApp>;
let session: Session;

beforeEach(async () => {
  let time = Date.parse('2026-10-01T00:00:00.000Z');
  const config = testConfig();
  store = openSqliteStore(config, () => (time += 1_000));
  app = createApp(config, { store });
  await addOperator(store);
  session = await logIn(app);
  await store.signups.add({ email: 'ann@example.org', description: '' });
  await store.signups.add({ email: 'boris@example.org', description: '', language: 'ru' });
  await store.signups.add({ email: 'vera@example.org', description: '', language: 'ru' });
  await store.subscriptions.issueKey('vera@example.org');
});
afterEach(() => store.close());

const get = (path: string) => getAs(app, session, path);
/** Each listed row's address and language, as the table shows them. */
const listed = (html: string) =>
  [
    ...html.matchAll(
      /<tr><td data-label="Address">([^<]+)<\/td>.*?<td data-label="Language">([^<]*)<\/td>/g,
    ),
  ].map((m) => [m[1], m[2]]);

it("shows each signup's language in its own column", async () => {
  const res = await get('/admin/signups');
  expect(res.status).toBe(200);
  expect(listed(res.text)).toEqual([
    ['vera@example.org', 'ru'],
    ['boris@example.org', 'ru'],
    ['ann@example.org', 'en'],
  ]);
});

it('filters by language with a plain form, combined with the state and the search', async () => {
  const form = (await get('/admin/signups?language=ru')).text;
  expect(form).toMatch(
    /<select class="field-input" id="language" name="language">.*<option value="ru" selected="">/,
  );
  expect(listed(form).map(([address]) => address)).toEqual([
    'vera@example.org',
    'boris@example.org',
  ]);
  const only = async (query: string) =>
    listed((await get(`/admin/signups?${query}`)).text).map(([address]) => address);
  expect(await only('language=en')).toEqual(['ann@example.org']);
  expect(await only('language=ru&state=waitlisted')).toEqual(['boris@example.org']);
  expect(await only('language=ru&state=invited')).toEqual(['vera@example.org']);
  expect(await only('language=ru&q=ann')).toEqual([]);
  // An unknown language is no filter, as an unknown state is not.
  expect(await only('language=xx')).toHaveLength(3);
});

it("keeps the language filter on the next page's link", async () => {
  for (let i = 0; i < 50; i++)
    await store.signups.add({ email: `ru${i}@example.org`, description: '', language: 'ru' });
  const first = await get('/admin/signups?language=ru');
  const next = /href="(\/admin\/signups\?[^"]+)"/.exec(first.text)![1].replace(/&amp;/g, '&');
  expect(new URL(next, 'http://x').searchParams.get('language')).toBe('ru');
  // The 50 newest on the first page; ann is English, on neither.
  expect(listed((await get(next)).text)).toEqual([
    ['vera@example.org', 'ru'],
    ['boris@example.org', 'ru'],
  ]);
});

it('counts the signups by language on the dashboard', async () => {
  const res = await get('/admin');
  expect(res.status).toBe(200);
  expect(res.text).toContain(
    '<caption>Signups by language</caption><tbody>' +
      '<tr><th scope="row">en</th><td>1</td></tr>' +
      '<tr><th scope="row">ru</th><td>2</td></tr></tbody>',
  );
});

it("adds the CSV export's language column after the first seven, which keep their places", async () => {
  const res = await get('/admin/signups/export');
  expect(res.status).toBe(200);
  const [header, ...rows] = res.text.split('\r\n').filter(Boolean);
  expect(header.split(',').slice(0, 8)).toEqual([
    '"email"',
    '"description"',
    '"created_at"',
    '"invited_at"',
    '"activated_at"',
    '"confirmed_at"',
    '"state"',
    '"language"',
  ]);
  expect(rows.map((row) => [row.split(',')[0], row.split(',')[6], row.split(',')[7]])).toEqual([
    ['"vera@example.org"', '"invited"', '"ru"'],
    ['"boris@example.org"', '"waitlisted"', '"ru"'],
    ['"ann@example.org"', '"waitlisted"', '"en"'],
  ]);
});
