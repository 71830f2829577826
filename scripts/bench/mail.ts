// npm run bench:mail: invites BENCH_MAIL_COUNT (default 10 000) waitlisted addresses with the
// operator CLI exactly as an operator runs it (`node dist/server/waitlist.js invite --next N`), to
// a real SMTP server on 127.0.0.1 in its own process (scripts/smtp-sink.ts, counting messages by
// Message-ID), and prints messages per second over the whole command (start-up included), the
// CLI's peak RSS, and lost and duplicate messages, checked against the server's counts and the
// store's. Targets: ≥ 200 messages/s, peak RSS < 200 MB, 0 lost, 0 duplicates.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { openSqliteStore } from '../../server/store';
import { startSmtpSink } from '../lib/launch/smtp-process';
import { runMeasuredCli, type MeasuredRun } from './lib/measured-cli';

const COUNT = Number(process.env.BENCH_MAIL_COUNT ?? 10_000);
const TARGET = { messagesPerSecond: 200, peakRssBytes: 200 * 2 ** 20 };

async function seed(dataDir: string, count: number): Promise<string[]> {
  const store = openSqliteStore({ dataDir });
  const emails = Array.from(
    { length: count },
    (_, i) => `bench-${String(i).padStart(6, '0')}@example.org`,
  );
  // One transaction for the lot, opened by hand: the store's add awaits between its statements,
  // which a better-sqlite3 transaction function cannot span.
  store.db.exec('BEGIN');
  for (const email of emails) await store.signups.add({ email, description: 'bench' });
  store.db.exec('COMMIT');
  await store.close();
  return emails;
}

interface CliRun extends MeasuredRun {
  outcomes: Record<string, number>;
}

/** The CLI as the image runs it, with the peak-RSS reporter; stdout tallied by outcome. */
async function runInvite(env: NodeJS.ProcessEnv, count: number): Promise<CliRun> {
  const { child, done } = runMeasuredCli(['invite', '--next', String(count)], env);
  const outcomes: Record<string, number> = {};
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    const outcome = /^(sent|queued|failed|skipped|not on the waitlist)\s{2,}\S+@/.exec(line)?.[1];
    if (outcome) outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
  });
  return { ...(await done), outcomes };
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'orgnote-bench-mail-'));
  const sink = await startSmtpSink();
  try {
    const emails = await seed(dataDir, COUNT);
    const run = await runInvite(
      {
        DATA_DIR: dataDir,
        SITE_URL: 'https://orgnote.example',
        SMTP_URL: sink.url,
        LOG_LEVEL: 'silent',
      },
      COUNT,
    );
    const received = await sink.stats();
    const store = openSqliteStore({ dataDir });
    const mail = await store.mail.counts();
    const stats = await store.signups.stats();
    await store.close();

    const perSecond = COUNT / run.seconds;
    const lost = emails.length - received.uniqueMessageIds;
    const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
    const pass = (ok: boolean) => (ok ? 'PASS' : 'MISS');
    console.log(
      `\nMachine: ${os.cpus().length} × ${os.cpus()[0]?.model.trim()}, Node ${process.version}`,
    );
    console.log(
      `invite --next ${COUNT} → smtp://127.0.0.1:${sink.port} (pooled), exit code ${run.code}`,
    );
    console.log(`CLI lines: ${JSON.stringify(run.outcomes)}`);
    console.log(`SMTP server: ${JSON.stringify(received)}`);
    console.log(`store: mail ${JSON.stringify(mail)}, signups ${JSON.stringify(stats)}`);
    console.log(`time: ${run.seconds.toFixed(2)} s for ${COUNT} messages, start-up included`);
    console.log(
      `throughput: ${perSecond.toFixed(0)} messages/s  (target ≥ ${TARGET.messagesPerSecond}) ${pass(perSecond >= TARGET.messagesPerSecond)}`,
    );
    console.log(
      `CLI peak RSS: ${mib(run.peakRssBytes)} MiB  (target < ${mib(TARGET.peakRssBytes)} MiB) ${pass(run.peakRssBytes > 0 && run.peakRssBytes < TARGET.peakRssBytes)}`,
    );
    console.log(
      `lost: ${lost}, duplicates: ${received.duplicates}  (target 0 and 0) ${pass(lost === 0 && received.duplicates === 0)}`,
    );

    const failed =
      run.code !== 0 ||
      perSecond < TARGET.messagesPerSecond ||
      !(run.peakRssBytes > 0 && run.peakRssBytes < TARGET.peakRssBytes) ||
      lost !== 0 ||
      received.duplicates !== 0 ||
      received.received !== COUNT ||
      mail.sent !== COUNT ||
      run.outcomes.sent !== COUNT;
    process.exitCode = failed ? 1 : 0;
  } finally {
    await sink.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
