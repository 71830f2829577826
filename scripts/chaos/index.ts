// npm run chaos: three replicas of the built site on one PostgreSQL, under mixed load straight to
// them (signups, confirmations, leaves, console logins and invitations mailed to a real SMTP
// server) for CHAOS_SECONDS (default 300), while every 10 to 20 s one of them is killed with
// SIGKILL and started again, until at least 15 kills (fewer, in proportion, for a shorter run).
// Then the load stops, the mail queue drains, and the run is judged (accounting.ts): 0 signups
// answered 2xx and lost, 0 mails sent twice outside the one window, every confirmation and leave
// answered 2xx applied exactly once, no 5xx but 503 with Retry-After. Prints the counts, exits 1
// on any miss. Every process it started is stopped, also on Ctrl-C; the run's folder (the
// replicas' logs) is kept when something was missed.
import { setTimeout as sleep } from 'node:timers/promises';
import { query } from '../lib/launch/postgres';
import { account } from './accounting';
import { startFaults } from './faults';
import { startLoad, RATES } from './load';
import { printReport } from './report';
import { setUp, tearDown, REPLICAS, SMTP_TIMEOUT_MS, type Setup } from './setup';

const SECONDS = Number(process.env.CHAOS_SECONDS ?? 300);
/** 15 kills in 300 s, in proportion for another length. */
const KILL_TARGET = Math.max(1, Math.ceil((15 * SECONDS) / 300));
/** How long the queue may take to drain once the load stops (a killed claim runs out in 20 s). */
const DRAIN_TIMEOUT_MS = 120_000;
const PROGRESS_EVERY_MS = 30_000;

const say = (text: string) => process.stdout.write(`${text}\n`);

async function main(): Promise<number> {
  if (!Number.isInteger(SECONDS) || SECONDS < 10)
    throw new Error('CHAOS_SECONDS must be a whole number of seconds, at least 10');
  const parts: Partial<Setup> = {};
  let keep = false;
  let tornDown: Promise<void> | undefined;
  const cleanUp = () => (tornDown ??= tearDown(parts, keep));
  // Not once: Ctrl-C reaches this process both from the terminal and relayed by tsx, and a
  // second signal with no handler would end it before its clean-up.
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      say(`\n${signal}: stopping every process the run started`);
      void cleanUp().finally(() => process.exit(130));
    });

  try {
    say(`chaos: ${SECONDS} s, at least ${KILL_TARGET} kills of ${REPLICAS} replicas`);
    const setup = await setUp((part) => Object.assign(parts, part));
    say(
      `  replicas on ${setup.replicas.map((r) => r.port).join(', ')}, PostgreSQL on ` +
        `${setup.postgres.port}, SMTP_TIMEOUT_MS=${SMTP_TIMEOUT_MS}; logs in ${setup.folder}`,
    );
    say(
      `  load: ${RATES.signupsPerSecond} signups/s, a console login every ` +
        `${RATES.loginEverySeconds} s, an invitation every ${RATES.inviteEverySeconds} s`,
    );

    const restartFailures: Error[] = [];
    const started = Date.now();
    const load = startLoad(setup.replicas, setup.sink);
    const faults = startFaults(setup.replicas, (err) => restartFailures.push(err));
    // Past CHAOS_SECONDS only while kills are short of the target, and never past twice as long.
    let lastProgress = started;
    while (
      (Date.now() - started < SECONDS * 1_000 || faults.kills.length < KILL_TARGET) &&
      Date.now() - started < SECONDS * 2_000 &&
      restartFailures.length === 0
    ) {
      await sleep(1_000);
      if (Date.now() - lastProgress >= PROGRESS_EVERY_MS) {
        lastProgress = Date.now();
        say(
          `  ${Math.round((lastProgress - started) / 1_000)} s: ${faults.kills.length} kills, ` +
            `${load.record.sent.length} requests, ${setup.sink.accepted.length} mails`,
        );
      }
    }
    const kills = await faults.stop();
    const record = await load.stop();
    say(`  load stopped after ${Math.round((Date.now() - started) / 1_000)} s; draining the queue`);
    await drain(setup);

    const tally = await account(setup.databaseUrl, record, kills, setup.sink.accepted);
    printReport(tally, kills, { seconds: SECONDS, killTarget: KILL_TARGET });
    for (const err of restartFailures) say(`MISS a replica did not come back: ${err.message}`);
    if (kills.length < KILL_TARGET) say(`MISS kills: ${kills.length} < ${KILL_TARGET}`);
    const misses = tally.misses + restartFailures.length + (kills.length < KILL_TARGET ? 1 : 0);
    keep = misses > 0;
    say(
      misses === 0
        ? 'chaos: every count at 0'
        : `chaos: ${misses} misses; logs kept in ${setup.folder}`,
    );
    return misses === 0 ? 0 : 1;
  } catch (err) {
    keep = true;
    if (parts.folder) say(`chaos: stopped by an error; logs kept in ${parts.folder}`);
    throw err;
  } finally {
    await cleanUp();
  }
}

/** Waits until every replica is up and no mail is waiting or owed, or DRAIN_TIMEOUT_MS. */
async function drain({ replicas, databaseUrl }: Setup): Promise<void> {
  const deadline = Date.now() + DRAIN_TIMEOUT_MS;
  for (;;) {
    const [{ n }] = await query<{ n: number }>(
      databaseUrl,
      `SELECT (SELECT COUNT(*) FROM mail WHERE state = 'queued')
            + (SELECT COUNT(*) FROM signups WHERE confirmation_due_at IS NOT NULL) AS n`,
    );
    if ((Number(n) === 0 && replicas.every((r) => r.up)) || Date.now() > deadline) break;
    await sleep(500);
  }
  // The sink records a message before it answers; the store marks it sent after: let both land.
  await sleep(2_000);
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`chaos: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
