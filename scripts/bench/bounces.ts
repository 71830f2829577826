// npm run bench:bounces: what the providers' bounce and complaint notifications cost the visitors,
// and whether each is applied once. The built site on SQLite in a temp DATA_DIR, its list seeded
// with BENCH_BOUNCES_SIGNUPS addresses (default 2 000) by the built CLI's `waitlist import` of a
// listmonk export, and the routes of all five providers on (Amazon SES through SNS, Postmark,
// SendGrid, Mailgun, Resend), with credentials, keys and secrets made here. SNS's certificate host
// cannot be reached from here: the site runs with the tests' stand-in for it preloaded
// (scripts/lib/bounces/sns-host-stand-in.cjs), which answers its certificate fetches from a file;
// the signature checks are the site's own.
// - Pages: GET /, /activate and /privacy in turn from wrk (lib/load.ts, a process of its own,
//   BENCH_BOUNCES_CONNECTIONS connections, default 10), for BENCH_BOUNCES_SECONDS (default 10)
//   alone (the baseline), then for as long again beside the notifications; 3 s of warm-up before
//   each window.
// - Notifications: BENCH_BOUNCES_COUNT (default 1 000) evenly over the window, a fifth to each
//   provider in turn, open-loop (lib/open-loop.ts: each sent when due whatever the answers, at
//   most 128 open, timed from when it was due). Each is built and signed by the providers' own
//   rules (scripts/lib/bounces/) before the window, so no signing shares the cores with the site
//   while it is measured. The mix of each provider's share: 5 % duplicates (an earlier request
//   sent again, byte for byte, 1 to 3 s later), 5 % complaints, 20 % transient bounces (two
//   addresses get three, which makes them undeliverable), the rest permanent bounces, 2 % of
//   those for addresses not on the list.
// Then the store is read (the SQLite file, read-only) and set against what was sent: signups left,
// undeliverable addresses by provider, notices kept by provider and kind, transient bounces,
// suppressions and Mailgun's tokens. Exits non-zero when a notification was not answered 200 or a
// count is off; the pages' p99 is reported, not judged. Every process it started is stopped and
// its temp folder removed, also on Ctrl-C.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import * as mailgun from '../lib/bounces/mailgun';
import * as postmark from '../lib/bounces/postmark';
import * as resend from '../lib/bounces/resend';
import * as sendgrid from '../lib/bounces/sendgrid';
import * as ses from '../lib/bounces/ses';
import { listmonkExport } from '../lib/import-files';
import { releasePort, reservePort, SCRIPT_PORTS } from '../lib/launch/ports';
import { startBuiltServer, type BuiltServer } from '../lib/launch/server';
import { ROOT } from '../lib/root';
import { cpuSeconds, machineBusySeconds } from './lib/cpu';
import { seededRandom, shuffled } from './lib/seeded';
import { load, type LoadResult } from './lib/load';
import { runOpenLoop, type Stream, type StreamResult, type WireRequest } from './lib/open-loop';
import { writeReport } from './lib/report';
import { percentile } from './lib/stats';

const COUNT = Number(process.env.BENCH_BOUNCES_COUNT ?? 1_000);
const SECONDS = Number(process.env.BENCH_BOUNCES_SECONDS ?? 10);
const SIGNUPS = Number(process.env.BENCH_BOUNCES_SIGNUPS ?? 2_000);
const CONNECTIONS = Number(process.env.BENCH_BOUNCES_CONNECTIONS ?? 10);
const WARM_UP_SECONDS = 3;
const PAGES = ['/', '/activate', '/privacy'];
const PROVIDERS = ['ses', 'postmark', 'sendgrid', 'mailgun', 'resend'] as const;
/** SNS's certificate host, stood in for in the site's process (node --require). */
const SNS_STAND_IN = path.join(ROOT, 'scripts/lib/bounces/sns-host-stand-in.cjs');
/** Addresses per provider that get three transient bounces (the third makes them undeliverable). */
const TRIPLES = 2;

type Provider = (typeof PROVIDERS)[number];
type Kind = 'permanent' | 'transient' | 'complaint';

const say = (text: string) => process.stdout.write(`${text}\n`);

/** One notification as planned: what it reports, and the request that carries it. */
interface Planned {
  provider: Provider;
  kind: Kind;
  /** Whether its address is on the list. */
  listed: boolean;
  /** Sent before: this is the same request again. */
  duplicate: boolean;
  wire: WireRequest;
}

/** The providers' secrets, made for this run. */
interface Secrets {
  /** SNS's signing key, and its certificate the stand-in serves. */
  sns: ses.SnsSigner;
  postmarkAuth: string;
  sendgrid: sendgrid.SendgridKeys;
  mailgunKey: string;
  resendSecret: string;
}

interface Parts {
  /** Set on Ctrl-C or SIGTERM: the run stops before its next step. */
  stopping: boolean;
  folder?: string;
  server?: BuiltServer;
  ports: number[];
}

async function main(): Promise<number> {
  if (
    !(COUNT >= 100 && COUNT <= 5_000 && COUNT % PROVIDERS.length === 0) ||
    !(SECONDS >= 2 && SECONDS <= 120) ||
    !(SIGNUPS >= COUNT && SIGNUPS <= 100_000) ||
    !(CONNECTIONS >= 1 && CONNECTIONS <= 200)
  )
    throw new Error(
      `BENCH_BOUNCES_COUNT must be 100-5000 and a multiple of ${PROVIDERS.length}, ` +
        'BENCH_BOUNCES_SECONDS 2-120, ' +
        'BENCH_BOUNCES_SIGNUPS at least the count and at most 100000, ' +
        'BENCH_BOUNCES_CONNECTIONS 1-200',
    );
  const parts: Parts = { stopping: false, ports: [] };
  // On a signal the site is stopped at once; the step under way then ends (wrk within its
  // window, the notifications within their timeout), so its own temp folder goes too, and the
  // run goes no further. The teardown runs again at the end for anything started meanwhile.
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.on(signal, () => {
      if (parts.stopping) return;
      parts.stopping = true;
      void tearDown(parts);
    });
  try {
    return await run(parts);
  } catch (err) {
    if (parts.stopping) return 130;
    throw err;
  } finally {
    await tearDown(parts);
  }
}

/** Throws when the run was told to stop. */
function goOn(parts: Parts): void {
  if (parts.stopping) throw new Error('stopped');
}

async function run(parts: Parts): Promise<number> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'orgnote-bench-bounces-'));
  parts.folder = folder;
  const dataDir = path.join(folder, 'data');
  fs.mkdirSync(dataDir, { mode: 0o700 });
  const secrets: Secrets = {
    sns: ses.snsSigner(),
    postmarkAuth: `orgnote:${randomText(24)}`,
    sendgrid: sendgrid.sendgridKeys(),
    mailgunKey: `key-${randomText(32)}`,
    resendSecret: resend.newSecret(),
  };
  const port = reservePort(...SCRIPT_PORTS);
  parts.ports.push(port);
  const settings = {
    PORT: String(port),
    DATA_DIR: dataDir,
    BACKEND_URL: '',
    DATABASE_URL: '',
    SMTP_URL: '',
    // As production logs: the access line of every request is part of what it costs.
    LOG_LEVEL: 'info',
    BOUNCE_SES_TOPIC_ARNS: ses.SES_TOPIC,
    SNS_STAND_IN_CERTIFICATE: path.join(folder, 'sns.pem'),
    SNS_STAND_IN_VISITS: path.join(folder, 'sns-visits'),
    BOUNCE_POSTMARK_AUTH: secrets.postmarkAuth,
    BOUNCE_SENDGRID_PUBLIC_KEY: secrets.sendgrid.publicKey,
    BOUNCE_MAILGUN_SIGNING_KEY: secrets.mailgunKey,
    BOUNCE_RESEND_SECRET: secrets.resendSecret,
  };

  say(
    `bench:bounces: SQLite, ${SIGNUPS} signups; pages from wrk (${CONNECTIONS} connections) ` +
      `for ${SECONDS} s alone, then beside ${COUNT} notifications over ${SECONDS} s ` +
      `(${PROVIDERS.join(', ')})`,
  );
  await seed(folder, settings);
  goOn(parts);
  fs.writeFileSync(settings.SNS_STAND_IN_CERTIFICATE, secrets.sns.certificate);
  fs.writeFileSync(settings.SNS_STAND_IN_VISITS, '');
  parts.server = await startBuiltServer({
    env: settings,
    logFile: 'site.log',
    nodeArgs: ['--require', SNS_STAND_IN],
  });
  const server = parts.server;
  goOn(parts);
  const seeded = readStore(dataDir).signups;
  if (seeded !== SIGNUPS) throw new Error(`the import left ${seeded} signups, not ${SIGNUPS}`);

  const plan = planNotifications(secrets);
  const pages = { url: server.url, paths: PAGES, connections: CONNECTIONS };
  const loadBefore = os.loadavg();

  await load({ ...pages, seconds: WARM_UP_SECONDS });
  goOn(parts);
  const baseline = await measured(server, () => load({ ...pages, seconds: SECONDS }));
  goOn(parts);
  await load({ ...pages, seconds: WARM_UP_SECONDS });
  goOn(parts);
  const during = await measured(server, async () => {
    const [pageLoad, answers] = await Promise.all([
      load({ ...pages, seconds: SECONDS }),
      runOpenLoop(server.url, [streamOf(plan)], SECONDS),
    ]);
    return { ...pageLoad, answers: answers[0] };
  });
  const loadAfter = os.loadavg();
  goOn(parts);

  const stored = readStore(dataDir);
  const expected = expectedStore(plan);
  const answers = during.answers;
  const all = summarise(answers);
  const figures = {
    count: COUNT,
    seconds: SECONDS,
    signups: SIGNUPS,
    connections: CONNECTIONS,
    loadAverage: { before: loadBefore, after: loadAfter },
    mix: mixOf(plan),
    pages: {
      baseline: pageFigures(baseline),
      during: pageFigures(during),
      p99Ratio: during.p99 / baseline.p99,
    },
    notifications: all,
    store: { expected, stored },
  };
  writeReport('bounces', figures);
  print(figures);

  const misses = [
    all.ok !== all.sent && `${all.sent - all.ok} of ${all.sent} notifications not answered 200`,
    all.sent !== COUNT && `${all.sent} notifications sent, not ${COUNT}`,
    ...storeMisses(expected, stored),
    baseline.errors + during.errors > 0 &&
      `${baseline.errors + during.errors} page requests failed (connect, read, timeout)`,
    baseline.non2xx + during.non2xx > 0 &&
      `${baseline.non2xx + during.non2xx} page requests answered 4xx or 5xx`,
  ].filter(Boolean);
  for (const miss of misses) say(`MISS ${miss}`);
  say(
    misses.length
      ? `bench:bounces: ${misses.length} misses`
      : 'bench:bounces: every notification answered 200 and applied once',
  );
  return misses.length ? 1 : 0;
}

/** `waitlist import` of a listmonk export of SIGNUPS subscribers, before the site starts. */
async function seed(folder: string, settings: Record<string, string>): Promise<void> {
  const file = path.join(folder, 'subscribers.csv');
  const start = Date.parse('2026-01-01T00:00:00.000Z');
  fs.writeFileSync(
    file,
    listmonkExport(
      Array.from({ length: SIGNUPS }, (_, i) => ({
        email: listed(i),
        status: 'enabled' as const,
        createdAt: new Date(start + i * 60_000).toISOString(),
      })),
    ),
  );
  await promisify(execFile)(
    process.execPath,
    [path.join(ROOT, 'dist/server/waitlist.js'), 'import', file],
    { cwd: ROOT, env: { PATH: process.env.PATH, ...settings, LOG_LEVEL: 'silent' } },
  );
}

const listed = (i: number) => `subscriber-${i}@example.org`;

/**
 * Every notification of the window, each provider's share in the order it is sent: the originals
 * shuffled, each duplicate 1 to 3 s after the request it repeats. Each original has an address
 * of its own, but for the transient triples.
 */
function planNotifications(secrets: Secrets): Map<Provider, Planned[]> {
  const random = seededRandom(56);
  const share = COUNT / PROVIDERS.length;
  const duplicates = Math.round(share * 0.05);
  const complaints = Math.round(share * 0.05);
  const transients = Math.round(share * 0.2);
  const permanents = share - duplicates - complaints - transients;
  const unlisted = Math.max(1, Math.round(permanents * 0.02));
  let next = 0;
  const plan = new Map<Provider, Planned[]>();
  for (const provider of PROVIDERS) {
    const build = builderOf(provider, secrets);
    const originals: Planned[] = [];
    const add = (kind: Kind, email: string, isListed = true) =>
      originals.push({
        provider,
        kind,
        listed: isListed,
        duplicate: false,
        wire: build(kind, email),
      });
    for (let i = 0; i < permanents - unlisted; i++) add('permanent', listed(next++));
    for (let i = 0; i < unlisted; i++)
      add('permanent', `not-listed-${provider}-${i}@example.org`, false);
    for (let i = 0; i < TRIPLES; i++) {
      const email = listed(next++);
      for (let j = 0; j < 3; j++) add('transient', email);
    }
    for (let i = 0; i < transients - 3 * TRIPLES; i++) add('transient', listed(next++));
    for (let i = 0; i < complaints; i++) add('complaint', listed(next++));
    const sent = shuffled(originals, random);
    const order = [...sent];
    const perSecond = share / SECONDS;
    for (let i = 0; i < duplicates; i++) {
      const original = sent[Math.floor(random() * sent.length * 0.6)];
      const at = order.indexOf(original) + Math.ceil(perSecond * (1 + 2 * random()));
      order.splice(Math.min(at, order.length), 0, { ...original, duplicate: true });
    }
    plan.set(provider, order);
  }
  if (next > SIGNUPS) throw new Error(`the plan needs ${next} listed addresses`);
  return plan;
}

/** Builds and signs one provider's request reporting `kind` for `email`, as that provider would. */
function builderOf(
  provider: Provider,
  secrets: Secrets,
): (kind: Kind, email: string) => WireRequest {
  let serial = 0;
  const wire = ({ headers, body }: { headers: Record<string, string>; body: Buffer }) => ({
    method: 'POST' as const,
    path: `/bounces/${provider}`,
    headers: { ...headers, 'content-length': body.length },
    body,
  });
  const at = Date.now();
  switch (provider) {
    case 'ses':
      return (kind, email) => {
        const message =
          kind === 'complaint'
            ? ses.sesComplaint({ emails: [email], at })
            : ses.sesBounce({
                emails: [email],
                at,
                bounceType: kind === 'permanent' ? 'Permanent' : 'Transient',
                bounceSubType: kind === 'permanent' ? 'General' : 'MailboxFull',
                status: kind === 'permanent' ? '5.1.1' : '4.2.2',
              });
        const messageId = `bench-${serial++}-${randomText(12)}`;
        const envelope = ses.snsNotification(message, { messageId, at });
        return wire(ses.signed(envelope, secrets.sns, { version: 2 }));
      };
    case 'postmark':
      return (kind, email) => {
        const id = 800_000_000 + serial++;
        const payload =
          kind === 'complaint'
            ? postmark.spamComplaintPayload({ email, id, at })
            : postmark.bouncePayload({
                email,
                id,
                at,
                type: kind === 'permanent' ? 'HardBounce' : 'SoftBounce',
              });
        return wire(postmark.signed(payload, secrets.postmarkAuth));
      };
    case 'sendgrid':
      return (kind, email) => {
        const id = `bench-${serial++}-${randomText(12)}`;
        const event =
          kind === 'complaint'
            ? sendgrid.spamreportEvent({ email, id, at })
            : sendgrid.bounceEvent({
                email,
                id,
                at,
                type: kind === 'permanent' ? 'bounce' : 'blocked',
                ...(kind === 'transient' && {
                  status: '4.0.0',
                  reason: '421 try again later',
                  classification: 'Technical',
                }),
              });
        return wire(sendgrid.signed([event], secrets.sendgrid.privateKey, { at }));
      };
    case 'mailgun':
      return (kind, email) => {
        const event =
          kind === 'complaint'
            ? mailgun.complainedEvent({ email, at })
            : mailgun.failedEvent({
                email,
                at,
                severity: kind === 'permanent' ? 'permanent' : 'temporary',
              });
        return wire(mailgun.signed(event, secrets.mailgunKey, { at }));
      };
    case 'resend':
      return (kind, email) => {
        const event =
          kind === 'complaint'
            ? resend.complainedEvent({ to: email, at })
            : resend.bouncedEvent({
                to: email,
                at,
                type: kind === 'permanent' ? 'Permanent' : 'Transient',
                subType: kind === 'permanent' ? 'General' : 'MailboxFull',
              });
        return wire(resend.signed(event, secrets.resendSecret, { at }));
      };
  }
}

/**
 * The notifications as one open-loop stream, evenly over the window: the providers in turn, each
 * provider's in its planned order. (A stream a provider would send five at the same instant.)
 */
function streamOf(plan: Map<Provider, Planned[]>): Stream {
  const orders = [...plan.values()];
  const wires = orders[0].flatMap((_, i) => orders.map((order) => order[i].wire));
  return {
    name: 'notifications',
    perSecond: wires.length / SECONDS,
    request: (i) => wires[i],
  };
}

/**
 * The window's figures: `work`'s, and the cores taken meanwhile by the site, by this process (the
 * notifications' sender) and by the whole machine (wrk and the neighbours included).
 */
async function measured<T extends LoadResult>(server: BuiltServer, work: () => Promise<T>) {
  const pid = server.child.pid;
  const siteBefore = cpuSeconds(pid);
  const busyBefore = machineBusySeconds();
  const benchBefore = process.cpuUsage();
  const started = Date.now();
  const result = await work();
  const wall = (Date.now() - started) / 1000;
  const site = (cpuSeconds(pid) ?? NaN) - (siteBefore ?? NaN);
  const busy = (machineBusySeconds() ?? NaN) - (busyBefore ?? NaN);
  const bench = process.cpuUsage(benchBefore);
  const cores = (seconds: number) => round2(seconds / wall);
  return {
    ...result,
    siteCores: cores(site),
    benchCores: cores((bench.user + bench.system) / 1e6),
    busyCores: cores(busy),
  };
}

const pageFigures = ({ answers: _, ...figures }: PageWindow) => figures;
type PageWindow = LoadResult & {
  siteCores: number;
  benchCores: number;
  busyCores: number;
  answers?: StreamResult;
};

/** Statuses, failures and latency percentiles (ms, from when each was due) of the stream. */
function summarise(result: StreamResult) {
  const { latencies, sendLags } = result;
  const pick = (values: number[], p: number) =>
    values.length ? round2(percentile(values, p)) : NaN;
  return {
    sent: result.sent,
    ok: result.statuses.get(200) ?? 0,
    statuses: Object.fromEntries(result.statuses),
    timeouts: result.timeouts,
    errors: result.errors,
    p50: pick(latencies, 0.5),
    p99: pick(latencies, 0.99),
    max: pick(latencies, 1),
    sendLagP99: pick(sendLags, 0.99),
  };
}

/** How many of each kind each provider sent. */
function mixOf(plan: Map<Provider, Planned[]>) {
  return Object.fromEntries(
    [...plan].map(([provider, order]) => {
      const count = (test: (p: Planned) => boolean) => order.filter(test).length;
      return [
        provider,
        {
          permanent: count((p) => !p.duplicate && p.kind === 'permanent'),
          notListed: count((p) => !p.duplicate && !p.listed),
          transient: count((p) => !p.duplicate && p.kind === 'transient'),
          complaint: count((p) => !p.duplicate && p.kind === 'complaint'),
          duplicate: count((p) => p.duplicate),
        },
      ];
    }),
  );
}

/** What the store holds after the window, read from the SQLite file opened read-only. */
interface StoreCounts {
  signups: number;
  /** Undeliverable addresses, by the provider that made them so. */
  undeliverable: Record<string, number>;
  /** Notices kept, by `provider/kind`. */
  notices: Record<string, number>;
  transientBounces: number;
  suppressions: number;
  mailgunTokens: number;
}

function readStore(dataDir: string): StoreCounts {
  const db = new Database(path.join(dataDir, 'waitlist.db'), {
    readonly: true,
    fileMustExist: true,
  });
  try {
    const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    const grouped = (sql: string) =>
      Object.fromEntries(
        (db.prepare(sql).all() as { key: string; n: number }[]).map(({ key, n }) => [key, n]),
      );
    return {
      signups: count('SELECT COUNT(*) AS n FROM signups'),
      undeliverable: grouped(
        `SELECT undeliverable_by AS key, COUNT(*) AS n FROM signups
         WHERE undeliverable_at IS NOT NULL GROUP BY undeliverable_by`,
      ),
      notices: grouped(
        `SELECT provider || '/' || kind AS key, COUNT(*) AS n FROM bounce_notices
         GROUP BY provider, kind`,
      ),
      transientBounces: count('SELECT COUNT(*) AS n FROM transient_bounces'),
      suppressions: count('SELECT COUNT(*) AS n FROM suppressions'),
      mailgunTokens: count(`SELECT COUNT(*) AS n FROM bounce_tokens WHERE provider = 'mailgun'`),
    };
  } finally {
    db.close();
  }
}

/**
 * What the store must hold if each notification was applied once: a notice kept for each
 * original on the list (none for an address not on it, none for a duplicate); a permanent bounce's
 * address undeliverable, and a triple's; a complaint's address gone and suppressed; a row for each
 * transient bounce; a token for each Mailgun request (the store keeps it before it looks at the
 * address).
 */
function expectedStore(plan: Map<Provider, Planned[]>): StoreCounts {
  const expected: StoreCounts = {
    signups: SIGNUPS,
    undeliverable: {},
    notices: {},
    transientBounces: 0,
    suppressions: 0,
    mailgunTokens: 0,
  };
  for (const [provider, order] of plan) {
    const originals = order.filter((p) => !p.duplicate);
    const onList = originals.filter((p) => p.listed);
    const of = (kind: Kind) => onList.filter((p) => p.kind === kind).length;
    for (const kind of ['permanent', 'transient', 'complaint'] as const)
      if (of(kind)) expected.notices[`${provider}/${kind}`] = of(kind);
    expected.undeliverable[provider] = of('permanent') + TRIPLES;
    expected.transientBounces += of('transient');
    expected.suppressions += of('complaint');
    expected.signups -= of('complaint');
    if (provider === 'mailgun') expected.mailgunTokens = originals.length;
  }
  return expected;
}

function storeMisses(expected: StoreCounts, stored: StoreCounts): string[] {
  const misses: string[] = [];
  const compare = (what: string, want: number, got: number | undefined) => {
    if (want !== (got ?? 0)) misses.push(`store: ${what} ${got ?? 0}, expected ${want}`);
  };
  compare('signups', expected.signups, stored.signups);
  compare('transient bounces', expected.transientBounces, stored.transientBounces);
  compare('suppressions', expected.suppressions, stored.suppressions);
  compare("Mailgun's tokens", expected.mailgunTokens, stored.mailgunTokens);
  for (const key of new Set([
    ...Object.keys(expected.undeliverable),
    ...Object.keys(stored.undeliverable),
  ]))
    compare(`undeliverable by ${key}`, expected.undeliverable[key] ?? 0, stored.undeliverable[key]);
  for (const key of new Set([...Object.keys(expected.notices), ...Object.keys(stored.notices)]))
    compare(`notices ${key}`, expected.notices[key] ?? 0, stored.notices[key]);
  return misses;
}

type Figures = {
  pages: { baseline: ReturnType<typeof pageFigures>; during: ReturnType<typeof pageFigures> };
  notifications: ReturnType<typeof summarise>;
  store: { expected: StoreCounts; stored: StoreCounts };
  loadAverage: { before: number[]; after: number[] };
  mix: ReturnType<typeof mixOf>;
};

function print({ pages, notifications, store, loadAverage, mix }: Figures): void {
  const { baseline, during } = pages;
  const load1 = (values: number[]) => values.map((v) => v.toFixed(2)).join(' ');
  say('');
  say('| Pages (wrk) | req/s | p50 | p99 | errors | non-2xx | cores: site | sender | machine |');
  say('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const [name, p] of [
    ['alone', baseline],
    ['beside the notifications', during],
  ] as const)
    say(
      `| ${name} | ${p.rps} | ${ms(p.p50)} | ${ms(p.p99)} | ${p.errors} | ${p.non2xx} | ` +
        `${p.siteCores} | ${p.benchCores} | ${p.busyCores} |`,
    );
  say(`  pages' p99 beside the notifications: ${(during.p99 / baseline.p99).toFixed(2)}× alone`);
  say('');
  const n = notifications;
  const other = Object.entries(n.statuses)
    .filter(([status]) => status !== '200')
    .map(([status, count]) => `${status}: ${count}`);
  if (n.timeouts) other.push(`timeout: ${n.timeouts}`);
  if (n.errors) other.push(`error: ${n.errors}`);
  say('| Notifications | sent | 200 | other answers | p50 | p99 | max | sent late (p99) |');
  say('| --- | --- | --- | --- | --- | --- | --- | --- |');
  say(
    `| ${PROVIDERS.join(', ')} | ${n.sent} | ${n.ok} | ${other.join(', ') || '-'} | ` +
      `${ms(n.p50)} | ${ms(n.p99)} | ${ms(n.max)} | ${ms(n.sendLagP99)} |`,
  );
  say('');
  say('| Mix | permanent (not listed) | transient | complaint | duplicate |');
  say('| --- | --- | --- | --- | --- |');
  for (const [provider, m] of Object.entries(mix))
    say(
      `| ${provider} | ${m.permanent} (${m.notListed}) | ${m.transient} | ${m.complaint} | ` +
        `${m.duplicate} |`,
    );
  say('');
  say('| Store after the window | expected | stored |');
  say('| --- | --- | --- |');
  const { expected, stored } = store;
  const row = (what: string, want: number, got: number | undefined) =>
    say(`| ${what} | ${want} | ${got ?? 0} |`);
  row('signups', expected.signups, stored.signups);
  for (const [provider, n] of Object.entries(expected.undeliverable))
    row(`undeliverable by ${provider}`, n, stored.undeliverable[provider]);
  for (const [key, n] of Object.entries(expected.notices))
    row(`notices ${key}`, n, stored.notices[key]);
  row('transient bounces', expected.transientBounces, stored.transientBounces);
  row('suppressions', expected.suppressions, stored.suppressions);
  row("Mailgun's tokens", expected.mailgunTokens, stored.mailgunTokens);
  say('');
  say(`load average before ${load1(loadAverage.before)}, after ${load1(loadAverage.after)}`);
}

const ms = (value: number) => (Number.isNaN(value) ? '-' : `${value.toFixed(1)} ms`);
const round2 = (value: number) => Math.round(value * 100) / 100;

/** Letters and digits for the run's own secrets. */
function randomText(length: number): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  return Array.from(bytes, (b) => alphabet[b % alphabet.length]).join('');
}

/** Stops the site, gives its port back, removes the temp folder; harmless to run twice. */
async function tearDown(parts: Parts): Promise<void> {
  await parts.server?.stop();
  for (const port of parts.ports) releasePort(port);
  if (parts.folder) fs.rmSync(parts.folder, { recursive: true, force: true });
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench:bounces: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
