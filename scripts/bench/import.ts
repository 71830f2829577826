// npm run bench:import: imports a listmonk export of BENCH_IMPORT_ROWS (default 100 000)
// subscribers, 1 % of them blocklisted, with the operator CLI exactly as an operator runs it
// (`node dist/server/waitlist.js import <file>`), into SQLite and into PostgreSQL (a throwaway
// server), each beside the built site taking BENCH_IMPORT_SIGNUPS signups a second (default 20,
// open-loop). It prints the import's time, rows/s and the CLI's peak RSS, and the signups' p50,
// p99 and max before and during the import, then checks the store holds every row. Targets on
// SQLite: ≤ 30 s, peak RSS ≤ 200 MB; the PostgreSQL figures are reported.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { listmonkExport } from '../lib/import-files';
import { startPostgres } from '../lib/launch/postgres';
import { runMeasuredCli, type MeasuredRun } from './lib/measured-cli';
import { runOpenLoop, signupStream, type StreamResult } from './lib/open-loop';
import { percentile } from './lib/stats';
import { cleanUp, cleanups, readStore, withSites, type StoreAt } from './lib/store-sites';

const ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 100_000);
const SIGNUPS_PER_SECOND = Number(process.env.BENCH_IMPORT_SIGNUPS ?? 20);
const BEFORE_SECONDS = 5;
const TARGET = { seconds: 30, peakRssBytes: 200 * 2 ** 20 };

/** The file: written in slices, so the bench never holds it whole either. */
function writeExport(file: string, rows: number): void {
  const out = fs.openSync(file, 'w');
  const start = Date.parse('2023-01-01T00:00:00.000Z');
  const slice = 10_000;
  for (let from = 0; from < rows; from += slice) {
    const text = listmonkExport(
      Array.from({ length: Math.min(slice, rows - from) }, (_, j) => {
        const i = from + j;
        return {
          email: `subscriber-${i}@example.org`,
          name: `Subscriber ${i}, "S"`,
          attributes: { city: 'Bengaluru', projects: ['org', 'emacs'] },
          status: i % 100 === 0 ? ('blocklisted' as const) : ('enabled' as const),
          createdAt: new Date(start + i * 60_000).toISOString(),
        };
      }),
    );
    // Each slice comes with listmonk's header: only the first keeps it.
    fs.writeSync(out, from === 0 ? text : text.slice(text.indexOf('\n') + 1));
  }
  fs.closeSync(out);
}

interface Latencies {
  sent: number;
  latencies: number[];
  /** Answers other than 201, timeouts and errors. */
  failed: number;
}

const merge = (into: Latencies, { sent, latencies, statuses, timeouts, errors }: StreamResult) => {
  into.sent += sent;
  into.latencies.push(...latencies);
  for (const [status, n] of statuses) if (status !== 201) into.failed += n;
  into.failed += timeouts + errors;
};

/** Signups in one-second windows until `done` settles. */
async function signupsUntil(origin: string, name: string, done: Promise<unknown>) {
  const result: Latencies = { sent: 0, latencies: [], failed: 0 };
  let over = false;
  void done.finally(() => (over = true));
  for (let window = 0; !over; window++) {
    const live = signupStream(`live-${name}-${window}`, SIGNUPS_PER_SECOND, 1);
    const [stream] = await runOpenLoop(origin, [live], 1);
    merge(result, stream);
  }
  return result;
}

interface CaseResult {
  engine: string;
  run: MeasuredRun;
  batches: number;
  before: Latencies;
  during: Latencies;
  stored: number;
  expected: number;
}

async function importCase(engine: string, at: StoreAt, file: string): Promise<CaseResult> {
  const env =
    'dataDir' in at ? { DATA_DIR: at.dataDir, DATABASE_URL: '' } : { DATABASE_URL: at.databaseUrl };
  return withSites(1, env, async ([site]) => {
    const before: Latencies = { sent: 0, latencies: [], failed: 0 };
    const alone = signupStream(`live-${engine}-before`, SIGNUPS_PER_SECOND, BEFORE_SECONDS);
    merge(before, (await runOpenLoop(site.url, [alone], BEFORE_SECONDS))[0]);
    const { child, done } = runMeasuredCli(['import', file], { ...env, LOG_LEVEL: 'silent' });
    let batches = 0;
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.startsWith('… committed')) batches++;
      else if (line.trim()) console.log(`  ${line}`);
    });
    const during = await signupsUntil(site.url, `${engine}-during`, done);
    const run = await done;
    const stored = await readStore(at, (store) => store.signups.count());
    const blocklisted = Math.ceil(ROWS / 100);
    return {
      engine,
      run,
      batches,
      before,
      during,
      stored,
      expected: ROWS - blocklisted + before.sent + during.sent,
    };
  });
}

function report(result: CaseResult): boolean {
  const { engine, run, before, during } = result;
  const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
  const ms = (values: number[], p: number) =>
    values.length === 0 ? '-' : percentile(values, p).toFixed(1);
  const line = (name: string, l: Latencies) =>
    `  signups ${name}: ${l.sent} sent, ${l.failed} failed; p50 ${ms(l.latencies, 0.5)} ms, ` +
    `p99 ${ms(l.latencies, 0.99)} ms, max ${ms(l.latencies, 1)} ms`;
  console.log(`\n${engine}: import ${ROWS} rows, exit code ${run.code}`);
  console.log(
    `  ${run.seconds.toFixed(1)} s (${Math.round(ROWS / run.seconds)} rows/s), ` +
      `CLI peak RSS ${mib(run.peakRssBytes)} MiB, progress lines ${result.batches}`,
  );
  console.log(line('before', before));
  console.log(line('during', during));
  console.log(`  stored ${result.stored} signups, expected ${result.expected}`);
  const whole =
    run.code === 0 && result.stored === result.expected && before.failed + during.failed === 0;
  if (engine !== 'SQLite') return whole;
  const pass = (ok: boolean) => (ok ? 'PASS' : 'MISS');
  const time = run.seconds <= TARGET.seconds;
  const memory = run.peakRssBytes <= TARGET.peakRssBytes;
  console.log(
    `  ${pass(time)} ≤ ${TARGET.seconds} s   ${pass(memory)} ≤ ${mib(TARGET.peakRssBytes)} MiB`,
  );
  return whole && time && memory;
}

async function main(): Promise<void> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'orgnote-bench-import-'));
  cleanups.push(() => fs.rmSync(folder, { recursive: true, force: true }));
  const file = path.join(folder, 'subscribers.csv');
  writeExport(file, ROWS);
  console.log(
    `Machine: ${os.cpus().length} × ${os.cpus()[0]?.model.trim()}, Node ${process.version}; ` +
      `${file}: ${(fs.statSync(file).size / 2 ** 20).toFixed(1)} MiB, ${SIGNUPS_PER_SECOND} ` +
      'signups/s beside it',
  );
  const sqliteDir = fs.mkdirSync(path.join(folder, 'sqlite'), { mode: 0o700, recursive: true })!;
  const sqlite = await importCase('SQLite', { dataDir: sqliteDir }, file);
  const postgres = await startPostgres();
  cleanups.push(() => postgres.close());
  const pg = await importCase('PostgreSQL', { databaseUrl: await postgres.createDatabase() }, file);
  const passed = [report(sqlite), report(pg)].every(Boolean);
  process.exitCode = passed ? 0 : 1;
}

main()
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(cleanUp);
