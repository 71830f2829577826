// npm run bench:timing: whether the time of an answer tells who is on the list. The built
// production site runs on SQLite and on PostgreSQL (a throwaway server,
// scripts/lib/launch/postgres.ts), each with CONFIRM_SIGNUPS on and off, mailing through a real
// SMTP server on 127.0.0.1 in a process of its own (scripts/smtp-sink.ts). After
// BENCH_TIMING_COUNT addresses of each kind are put on the list through the API (and their mail
// has gone), it sends BENCH_TIMING_COUNT requests (default 200) of each kind: POST /leave and
// POST /privacy (a data link) for a listed and for an unlisted address, a signup of a new and of a
// known address, one at a time in a shuffled order, with a pause after each answer
// (BENCH_TIMING_PAUSE_MS, default 100) so the mail a listed or new address owes goes out between
// requests. Each request's time runs from the
// fetch to the last byte of its answer. Prints each kind's median and the ratio of each pair's
// medians (slower / faster), and exits non-zero when a ratio is over 1.1.
// BENCH_BASELINE=<commit> measures that commit's build instead (scripts/bench/lib/baseline.ts).
// About 9 minutes.
import { startPostgres } from '../lib/launch/postgres';
import { startBuiltServer } from '../lib/launch/server';
import { startSmtpSink, type SmtpSink } from '../lib/launch/smtp-process';
import { ROOT } from '../lib/root';
import { buildBaseline } from './lib/baseline';
import { seededRandom, shuffled } from './lib/seeded';
import { median } from './lib/stats';

const COUNT = Number(process.env.BENCH_TIMING_COUNT ?? 200);
const WARM_UP = 20;
/**
 * The pause after each answer: longer than the mail worker's wait after a wake and its round, so
 * the mail one request owes (a listed or new address) is sent before the next request, not
 * during it, and each answer is timed on a quiet site.
 */
const PAUSE_MS = Number(process.env.BENCH_TIMING_PAUSE_MS ?? 100);
const TARGET_RATIO = 1.1;
/** How long the site may take to send the mail the seeding owes. */
const MAIL_DRAIN_MS = 60_000;

const KINDS = [
  'leave: listed',
  'leave: unlisted',
  'data: listed',
  'data: unlisted',
  'signup: new',
  'signup: known',
] as const;
type Kind = (typeof KINDS)[number];
const PAIRS: [Kind, Kind][] = [
  ['leave: listed', 'leave: unlisted'],
  ['data: listed', 'data: unlisted'],
  ['signup: new', 'signup: known'],
];

interface Row {
  store: string;
  confirm: 'on' | 'off';
  medians: Record<Kind, number>;
}

/** One request, timed from the fetch to its last byte; throws on an unexpected status. */
async function timed(url: string, init: RequestInit, status: number): Promise<number> {
  const started = performance.now();
  const response = await fetch(url, init);
  await response.arrayBuffer();
  const ms = performance.now() - started;
  if (response.status !== status) throw new Error(`${url}: ${response.status}, not ${status}`);
  return ms;
}

const signUp = (siteUrl: string, email: string) =>
  timed(
    `${siteUrl}/api/subscriptions`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, description: 'npm run bench:timing' }),
    },
    201,
  );

/** /leave's form (a leave link) or /privacy's (a data link), as a browser without script posts. */
const askForLink = (siteUrl: string, path: '/leave' | '/privacy', email: string) =>
  timed(
    `${siteUrl}${path}`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email }).toString(),
    },
    200,
  );

/** Waits until the sink has received `count` messages and nothing more comes for a second. */
async function mailSettled(sink: SmtpSink, count: number): Promise<void> {
  const deadline = Date.now() + MAIL_DRAIN_MS;
  let last = -1;
  for (;;) {
    const { received } = await sink.stats();
    if (received >= count && received === last) return;
    if (Date.now() > deadline) throw new Error(`the sink has ${received} messages of ${count}`);
    last = received;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

async function measure(
  store: string,
  confirm: 'on' | 'off',
  databaseUrl: string,
  root: string,
): Promise<Row> {
  const sink = await startSmtpSink();
  const site = await startBuiltServer({
    env: {
      BACKEND_URL: '',
      DATABASE_URL: databaseUrl,
      CONFIRM_SIGNUPS: confirm,
      SITE_URL: 'https://orgnote.example', // only the links in the mail, never followed here
      SMTP_URL: sink.url,
      SIGNUP_RATE_LIMIT: '0', // one client stands for many visitors
      LOG_LEVEL: 'warn',
    },
    root,
    logFile: 'site.log',
  });
  try {
    const address = (kind: string, i: number) => `${kind}-${i}-${confirm}@example.org`;
    // On the list before the clock starts: the addresses /leave asks for and the known signups,
    // with the warm-up's too. Their confirmations (CONFIRM_SIGNUPS=on) go out first.
    for (let i = 0; i < COUNT + WARM_UP; i++) {
      await signUp(site.url, address('listed', i));
      await signUp(site.url, address('known', i));
    }
    await mailSettled(sink, confirm === 'on' ? 2 * (COUNT + WARM_UP) : 0);

    const send: Record<Kind, (i: number) => Promise<number>> = {
      'leave: listed': (i) => askForLink(site.url, '/leave', address('listed', i)),
      'leave: unlisted': (i) => askForLink(site.url, '/leave', address('unlisted', i)),
      'data: listed': (i) => askForLink(site.url, '/privacy', address('listed', i)),
      'data: unlisted': (i) => askForLink(site.url, '/privacy', address('unlisted', i)),
      'signup: new': (i) => signUp(site.url, address('new', i)),
      'signup: known': (i) => signUp(site.url, address('known', i)),
    };
    const next = seededRandom(41);
    const round = (from: number, count: number) =>
      shuffled(
        KINDS.flatMap((kind) => Array.from({ length: count }, (_, i) => ({ kind, i: from + i }))),
        next,
      );
    for (const { kind, i } of round(COUNT, WARM_UP)) await send[kind](i);
    const times = Object.fromEntries(KINDS.map((kind) => [kind, [] as number[]])) as Record<
      Kind,
      number[]
    >;
    for (const { kind, i } of round(0, COUNT)) {
      times[kind].push(await send[kind](i));
      await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
    }
    const medians = Object.fromEntries(KINDS.map((kind) => [kind, median(times[kind])])) as Record<
      Kind,
      number
    >;
    return { store, confirm, medians };
  } finally {
    await site.stop();
    await sink.stop();
  }
}

async function main(): Promise<void> {
  const baseline = process.env.BENCH_BASELINE ? buildBaseline() : undefined;
  const root = baseline?.root ?? ROOT;
  if (baseline) console.log(`measuring the build of ${baseline.ref}`);
  const rows: Row[] = [];
  try {
    for (const confirm of ['on', 'off'] as const)
      rows.push(await measure('SQLite', confirm, '', root));
    const pg = await startPostgres();
    try {
      for (const confirm of ['on', 'off'] as const)
        rows.push(await measure('PostgreSQL', confirm, await pg.createDatabase(), root));
    } finally {
      await pg.close();
    }
  } finally {
    baseline?.remove();
  }

  const misses: string[] = [];
  const table = rows.map(({ store, confirm, medians }) => {
    const line: Record<string, string> = { store, CONFIRM_SIGNUPS: confirm };
    for (const kind of KINDS) line[`${kind} ms`] = medians[kind].toFixed(2);
    for (const [a, b] of PAIRS) {
      const ratio = Math.max(medians[a], medians[b]) / Math.min(medians[a], medians[b]);
      const miss = ratio > TARGET_RATIO;
      line[`${a.split(':')[0]} ratio`] = `${ratio.toFixed(3)}${miss ? ' MISS' : ''}`;
      if (miss)
        misses.push(
          `${store}, CONFIRM_SIGNUPS=${confirm}: ${a} ${medians[a].toFixed(2)} ms against ${b} ${medians[b].toFixed(2)} ms (${ratio.toFixed(3)}× > ${TARGET_RATIO}×)`,
        );
    }
    return line;
  });
  console.log(`medians of ${COUNT} requests of each kind, one at a time, shuffled`);
  console.table(table);
  for (const miss of misses) console.log(`MISS ${miss}`);
  if (misses.length === 0) console.log(`every ratio within ${TARGET_RATIO}×`);
  process.exitCode = misses.length ? 1 : 0;
}

void main();
