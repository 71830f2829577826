// The confirmation cases of npm run bench:store: what CONFIRM_SIGNUPS=on costs a signup.
// In the same build, SQLite and PostgreSQL ×3, each case with confirmation off and then at once
// with it on (SITE_URL set: only the mail's links use it), the same load as the other signup cases
// (store-signups.ts). On, every new signup is stored unconfirmed, owing its confirmation mail in
// the same statement, and the site's mail worker writes and sends it while the load goes on.
// Where the mail goes (BENCH_STORE_CONFIRM_MAIL):
//   smtp (default): SMTP_URL to a real SMTP server on 127.0.0.1 in its own process
//     (scripts/smtp-sink.ts), as an operator with confirmation on runs the site: mail has to reach
//     people. Its CPU is counted apart ("smtp sink"), but it shares the machine's cores.
//   eml: no SMTP_URL, the embedded default: an fsynced .eml file per message under DATA_DIR/mail.
// After the load, the bench waits for the queue to drain (at most DRAIN_GIVE_UP_MS) and checks that
// every signup stored has exactly one mail row, every one sent, and that the sink received (or the
// folders hold) as many messages; with confirmation off, that no mail was queued at all.
// "mail queued after load" says how much of the sending the load left for later: under this
// saturating load a site takes signups first (its mail worker waits behind every queued signup
// transaction for SQLite's writer, and for an event loop full of requests), so most confirmation
// mail goes out in the drain after the window, and on/off compares what a site takes in, not what
// it takes in and mails. The delivery target is npm run bench:confirm-mail's.
// Target: on / off ≥ 0.8 in signups/s for both engines.
import fs from 'node:fs';
import path from 'node:path';
import { openSqliteStore } from '../../../server/store';
import type { MailState } from '../../../server/store/mail-queue';
import type { Store } from '../../../server/store/types';
import { query, type PostgresServer } from '../../lib/launch/postgres';
import { startSmtpSink, type SmtpSink } from '../../lib/launch/smtp-process';
import { cpuSeconds } from './cpu';
import { postgresCpuSeconds } from './postgres-cpu';
import { measureSignups, type SignupResult } from './store-signups';
import {
  cleanups,
  readStore,
  sitesCpu,
  storedEmails,
  withSites,
  type Site,
  type StoreAt,
} from './store-sites';

export const CONFIRM_TARGET_RATIO = 0.8;
export type ConfirmMailTo = 'smtp' | 'eml';
// SQLite records each sent message in a commit of its own (an fsync): about 500 a second drain
// after the load.
const DRAIN_GIVE_UP_MS = 180_000;

export interface MailCheck {
  /** Mail still queued or owed right after the load: how far sending fell behind. */
  queuedAfterLoad: number;
  /** From the end of the load until nothing was queued (or DRAIN_GIVE_UP_MS). */
  drainSeconds: number;
  /** Mail rows by state once drained. */
  states: Record<MailState, number>;
  signups: number;
  /** Signups with other than exactly one mail row. */
  notOneMail: number;
  /** Messages the SMTP sink received during the case, or .eml files in the sites' folders. */
  delivered: number;
  /** Messages the sink received twice (by Message-ID); 0 for .eml files, named by queue id. */
  duplicates: number;
}

export interface ConfirmCase extends SignupResult {
  confirm: boolean;
  mail: MailCheck;
}

export interface ConfirmComparison {
  engine: string;
  off: ConfirmCase;
  on: ConfirmCase;
  ratio: number;
}

/** Signups with other than one mail row, in the SQL both engines speak. */
const MAIL_PER_SIGNUP = `SELECT COUNT(*) AS signups, COUNT(*) FILTER (WHERE n <> 1) AS not_one FROM (
  SELECT COUNT(mail.id) AS n FROM signups LEFT JOIN mail ON mail.email_key = signups.email_key GROUP BY signups.id) AS per_signup`;

async function mailPerSignup(at: StoreAt): Promise<{ signups: number; notOne: number }> {
  let row: { signups: number | string; not_one: number | string };
  if ('dataDir' in at) {
    const store = openSqliteStore({ dataDir: at.dataDir });
    try {
      row = store.db.prepare(MAIL_PER_SIGNUP).get() as typeof row;
    } finally {
      await store.close();
    }
  } else {
    [row] = await query<typeof row>(at.databaseUrl, MAIL_PER_SIGNUP);
  }
  return { signups: Number(row.signups), notOne: Number(row.not_one) };
}

const emlFiles = (sites: Site[]) =>
  sites.reduce((sum, site) => {
    const folder = path.join(site.dataDir, 'mail');
    return (
      sum +
      (fs.existsSync(folder)
        ? fs.readdirSync(folder).filter((name) => name.endsWith('.eml')).length
        : 0)
    );
  }, 0);

export function confirmFaults(c: ConfirmCase): string[] {
  const { mail } = c;
  const total = Object.values(mail.states).reduce((sum, n) => sum + n, 0);
  if (!c.confirm)
    return total === 0 ? [] : [`${c.name}: ${total} mail rows queued with confirmation off`];
  const ok =
    mail.notOneMail === 0 &&
    mail.states.sent === mail.signups &&
    total === mail.signups &&
    mail.delivered === mail.signups &&
    mail.duplicates === 0;
  return ok
    ? []
    : [
        `${c.name}: ${mail.signups} signups, ${mail.notOneMail} without exactly one mail, mail ${JSON.stringify(mail.states)}, ${mail.delivered} delivered, ${mail.duplicates} duplicates`,
      ];
}

/**
 * SQLite and PostgreSQL ×3, each off then on. `pg` is the bench's server; a fresh database per
 * case.
 */
export async function measureConfirmation(
  pg: PostgresServer,
  mailTo: ConfirmMailTo,
): Promise<ConfirmComparison[]> {
  let sink: SmtpSink | undefined;
  if (mailTo === 'smtp') {
    sink = await startSmtpSink();
    cleanups.push(sink.stop);
  }
  const confirmEnv = (confirm: boolean): NodeJS.ProcessEnv =>
    confirm
      ? {
          CONFIRM_SIGNUPS: 'on',
          SITE_URL: 'https://orgnote.example',
          SMTP_URL: sink?.url ?? '',
          MAIL_TO_FILES: sink ? 'off' : 'on',
        }
      : { CONFIRM_SIGNUPS: 'off' };

  const run = async (
    sites: Site[],
    name: string,
    confirm: boolean,
    at: StoreAt,
    watchPostgres: boolean,
  ): Promise<ConfirmCase> => {
    const sinkBefore = await sink?.stats();
    const result = await measureSignups({
      name,
      urls: sites.map((site) => site.url),
      cpu: {
        sites: sitesCpu(sites),
        ...(watchPostgres ? { postgres: () => postgresCpuSeconds(pg.dataDir) } : {}),
        ...(sink ? { 'smtp sink': () => cpuSeconds(sink.child.pid) } : {}),
      },
      storedEmails: () => storedEmails(at),
    });
    const loadEnded = Date.now();
    // Waiting to go out: queued, or owed by signups and not written yet (confirmation on).
    const waiting = async (store: Store) =>
      (await store.mail.counts()).queued + (await store.signups.confirmationsDue());
    const queuedAfterLoad = await readStore(at, waiting);
    const states = await readStore(at, async (store) => {
      for (;;) {
        if ((await waiting(store)) === 0 || Date.now() - loadEnded > DRAIN_GIVE_UP_MS)
          return store.mail.counts();
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    });
    const drainSeconds = (Date.now() - loadEnded) / 1000;
    const { signups, notOne } = await mailPerSignup(at);
    const sinkAfter = await sink?.stats();
    return {
      ...result,
      confirm,
      mail: {
        queuedAfterLoad,
        drainSeconds,
        states,
        signups,
        notOneMail: notOne,
        delivered:
          sinkBefore && sinkAfter ? sinkAfter.received - sinkBefore.received : emlFiles(sites),
        duplicates: sinkBefore && sinkAfter ? sinkAfter.duplicates - sinkBefore.duplicates : 0,
      },
    };
  };
  const label = (confirm: boolean) =>
    `, confirmation ${confirm ? `on (${mailTo === 'smtp' ? 'SMTP sink' : '.eml files'})` : 'off'}`;
  const sqliteCase = (confirm: boolean) =>
    withSites(1, confirmEnv(confirm), (sites) =>
      run(
        sites,
        `SQLite, 1 instance${label(confirm)}`,
        confirm,
        { dataDir: sites[0].dataDir },
        false,
      ),
    );
  const postgresCase = async (confirm: boolean) => {
    const databaseUrl = await pg.createDatabase();
    return withSites(3, { ...confirmEnv(confirm), DATABASE_URL: databaseUrl }, (sites) =>
      run(sites, `PostgreSQL, 3 replicas${label(confirm)}`, confirm, { databaseUrl }, true),
    );
  };

  const comparisons: ConfirmComparison[] = [];
  // Each "on" case right after its "off" one, so both meet the same machine.
  for (const [engine, measure] of [
    ['SQLite', sqliteCase],
    ['PostgreSQL ×3', postgresCase],
  ] as const) {
    const off = await measure(false);
    const on = await measure(true);
    comparisons.push({ engine, off, on, ratio: on.perSecond / off.perSecond });
  }
  await sink?.stop();
  return comparisons;
}
