// npm run bench:bots: what scripted bots get past the bot guard (decision 0024). The built site on
// SQLite, PROOF_OF_WORK=on, SIGNUP_RATE_LIMIT=0 (one load generator stands in for many clients, so
// the per-client limit proves nothing here), its metrics on a listener of their own. In turn:
// - a bot that posts 1 s after fetching `/`, BOTS_EARLY times at once, the first to fetch it;
// - meanwhile, a person: fetches `/`, waits 5 s, posts the form once;
//   and a no-JavaScript bot that omits the issue time, and a script that posts to the API without
//   proof of work, BOTS_POSTS times each;
// - a bot that replays the issue time of one fetch of `/` BOTS_POSTS times.
// Targets: the bots store at most SHARED_USES signups together (the bounded reuse of one field),
// the person stores 1, the API posts store 0, and signup_guard_refusals_total counts every post
// turned away. Prints a table; exits non-zero on any miss.
import { setTimeout as sleep } from 'node:timers/promises';
import { SHARED_USES } from '../../server/guard/issued-field';
import { openSqliteStore } from '../../server/store';
import { releasePort, reservePort, SCRIPT_PORTS } from '../lib/launch/ports';
import { startBuiltServer } from '../lib/launch/server';

const POSTS = Number(process.env.BOTS_POSTS ?? 1_000);
const EARLY = Number(process.env.BOTS_EARLY ?? 50);
/** How many posts are in flight at once. */
const CONCURRENCY = 16;
/** Every request gives up after this: the bench never hangs on a stuck site. */
const REQUEST_TIMEOUT_MS = 10_000;

const say = (text: string) => process.stdout.write(`${text}\n`);

interface Site {
  origin: string;
  metrics: string;
  dataDir: string;
  stop(): Promise<void>;
}

/** The built site, with the guard on and its metrics. */
async function startSite(): Promise<Site> {
  const metricsPort = reservePort(...SCRIPT_PORTS);
  try {
    const site = await startBuiltServer({
      env: {
        METRICS_PORT: String(metricsPort),
        DATABASE_URL: '',
        PROOF_OF_WORK: 'on',
        SIGNUP_RATE_LIMIT: '0',
        LOG_LEVEL: 'warn',
      },
      logFile: 'site.log',
    });
    return {
      origin: site.url,
      metrics: `http://127.0.0.1:${metricsPort}/metrics`,
      dataDir: site.dataDir,
      async stop() {
        await site.stop().finally(() => releasePort(metricsPort));
      },
    };
  } catch (err) {
    releasePort(metricsPort);
    throw err;
  }
}

/** The issue time the page's plain form carries. */
async function fetchField(site: Site): Promise<string> {
  const page = await fetch(`${site.origin}/`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  const issued = /<input type="hidden" name="issued" value="([^"]+)"/.exec(await page.text());
  if (!issued) throw new Error('`/` carries no issue time: is PROOF_OF_WORK on?');
  return issued[1];
}

/** The plain form's POST, as a browser without JavaScript sends it; its status. */
async function postForm(site: Site, email: string, issued?: string): Promise<number> {
  const form = new URLSearchParams({ email, description: 'github.com/bench' });
  if (issued !== undefined) form.set('issued', issued);
  const res = await fetch(`${site.origin}/?index`, {
    method: 'POST',
    body: form,
    redirect: 'manual',
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  await res.arrayBuffer();
  return res.status;
}

async function postApi(site: Site, email: string): Promise<number> {
  const res = await fetch(`${site.origin}/api/subscriptions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, description: 'github.com/bench' }),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  await res.arrayBuffer();
  return res.status;
}

/** `count` posts, CONCURRENCY at a time; their statuses by how often. */
async function flood(count: number, post: (i: number) => Promise<number>) {
  const statuses = new Map<number, number>();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const status = await post(next++);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return statuses;
}

/** signup_guard_refusals_total by route, summed over its reasons. */
async function refusals(site: Site): Promise<Record<'api' | 'form', number>> {
  const text = await (await fetch(site.metrics)).text();
  const sums = { api: 0, form: 0 };
  for (const [, route, value] of text.matchAll(
    /^signup_guard_refusals_total\{route="(api|form)",reason="[^"]+"\} (\d+)$/gm,
  ))
    sums[route as 'api' | 'form'] += Number(value);
  return sums;
}

/** The stored signups' addresses, read from the site's own database. */
async function storedEmails(site: Site): Promise<string[]> {
  const store = openSqliteStore({ dataDir: site.dataDir });
  try {
    return (await store.signups.list()).map((signup) => signup.email);
  } finally {
    await store.close();
  }
}

const of = (statuses: Map<number, number>) =>
  [...statuses].map(([status, n]) => `${n}×${status}`).join(' ');

async function run(site: Site): Promise<number> {
  const started = Date.now();
  // The first fetch renders `/`: a bot posting a second later is too soon.
  const early = Promise.all(
    Array.from({ length: EARLY }, async (_, i) => {
      const issued = await fetchField(site);
      await sleep(1_000);
      return postForm(site, `early-${i}@example.org`, issued);
    }),
  );
  const earlyStatuses = await early;
  const person = (async () => {
    const issued = await fetchField(site);
    await sleep(5_000);
    return postForm(site, 'person@example.org', issued);
  })();
  const [personStatus, blind, api] = await Promise.all([
    person,
    flood(POSTS, (i) => postForm(site, `blind-${i}@example.org`)),
    flood(POSTS, (i) => postApi(site, `api-${i}@example.org`)),
  ]);
  const replayed = await fetchField(site);
  const replay = await flood(POSTS, (i) => postForm(site, `replay-${i}@example.org`, replayed));
  const seconds = (Date.now() - started) / 1000;

  const emails = await storedEmails(site);
  const stored = (prefix: string) => emails.filter((email) => email.startsWith(prefix)).length;
  const bots = stored('early-') + stored('blind-') + stored('replay-');
  const formPosts = EARLY + 2 * POSTS + 1;
  const formStored = bots + stored('person@');
  const counted = await refusals(site);
  const rows: [string, string, string, boolean][] = [
    ['bots (early, blind, replay) stored', String(bots), `≤ ${SHARED_USES}`, bots <= SHARED_USES],
    ['  early: 1 s after the fetch', `${stored('early-')}`, of(count(earlyStatuses)), true],
    ['  blind: no issue time', `${stored('blind-')}`, of(blind), true],
    ['  replay: one issue time', `${stored('replay-')}`, of(replay), true],
    ['person: waits 5 s, posts once', String(stored('person@')), '1', stored('person@') === 1],
    ['API posts without proof stored', String(stored('api-')), '0', stored('api-') === 0],
    [
      'form refusals counted',
      String(counted.form),
      `= ${formPosts - formStored} turned away`,
      counted.form === formPosts - formStored,
    ],
    ['API refusals counted', String(counted.api), `= ${POSTS}`, counted.api === POSTS],
  ];
  say(`\nbench:bots (${seconds.toFixed(1)} s; the person's post answered ${personStatus})`);
  say(`| ${'what'.padEnd(36)} | ${'got'.padStart(6)} | target / statuses`);
  say(`|${'-'.repeat(38)}|${'-'.repeat(8)}|${'-'.repeat(30)}`);
  for (const [what, got, target, ok] of rows)
    say(`| ${what.padEnd(36)} | ${got.padStart(6)} | ${target}${ok ? '' : '  ✗ MISSED'}`);
  say(`API answers: ${of(api)}`);
  return rows.every(([, , , ok]) => ok) ? 0 : 1;
}

function count(statuses: number[]): Map<number, number> {
  const counts = new Map<number, number>();
  for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + 1);
  return counts;
}

async function main(): Promise<number> {
  if (!(POSTS >= 10 && POSTS <= 10_000 && EARLY >= 1 && EARLY <= 500))
    throw new Error('BOTS_POSTS must be 10-10000 and BOTS_EARLY 1-500');
  const site = await startSite();
  let stopped: Promise<void> | undefined;
  const stop = () => (stopped ??= site.stop());
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => void stop().finally(() => process.exit(130)));
  try {
    return await run(site);
  } finally {
    await stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
