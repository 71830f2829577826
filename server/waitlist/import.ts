// importList: brings a list in from a CSV file (`waitlist import`, the console's upload). The file
// is read as it streams (csv-records.ts), its header tells the format (import-formats.ts), and
// its rows go to the store in batches, each committed before the report counts it: a crash or a
// kill -9 loses nothing reported added, and running the same file again adds what is missing and
// leaves the rest as it is. A batch is sized by how long the last one took, so the SQLite write
// lock is held for a fraction of a second at a time and signups keep being answered meanwhile.
// Nobody is mailed. Decision 0037 says why it works this way.
import { basename } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { emailKey } from '../../shared/form-checks';
import { NOT_ONE_LINE } from '../../shared/validation';
import type { Config } from '../config';
import type { Store } from '../store';
import type { ImportedSignup } from '../store/imports';
import { csvRecords, type CsvProblem } from './csv-records';
import {
  rowReader,
  type HeaderProblem,
  type ImportField,
  type ImportFormat,
  type ImportRefusal,
  type RowError,
} from './import-formats';
import type { Actor } from './webhooks';

export { IMPORT_FIELDS, type ImportField } from './import-formats';

/** How many of a kind's line numbers the report lists. */
export const LISTED_LINES = 20;

/** A count, with the first LISTED_LINES line numbers it counted. */
export interface Tally {
  count: number;
  lines: number[];
}

export const REFUSALS: readonly ImportRefusal[] = ['blocklisted', 'unsubscribed', 'cleaned'];
export const ROW_ERRORS: readonly RowError[] = [
  'bad-address',
  'bad-date',
  'bad-value',
  'broken-row',
];

export interface ImportReport {
  format: ImportFormat;
  dryRun: boolean;
  /** Rows read, the header aside. */
  rows: number;
  added: Tally;
  /** On the list already, left as they are; a repeat of an address in the file counts here. */
  alreadyThere: Tally;
  /** Skipped: the address is suppressed (it left, or was refused before). */
  suppressed: Tally;
  /** Not added, and the address suppressed: listmonk's blocklist, Mailchimp's unsubscribed… */
  refused: Record<ImportRefusal, Tally>;
  errors: Record<RowError, Tally>;
}

/** Why a file is none this import reads: it stops at once, and nothing is stored. */
export type NotCsv =
  { kind: 'empty' } | { kind: 'unreadable-header'; problem: CsvProblem } | HeaderProblem;

export type ImportResult =
  | { kind: 'refused'; reason: 'backend-owns-signups' }
  | { kind: 'not-csv'; why: NotCsv }
  | { kind: 'done'; report: ImportReport };

export interface ImportInput {
  /** The file's bytes as they arrive (a file stream, stdin, an upload). */
  source: AsyncIterable<Uint8Array | string>;
  /** As given: the audit log has its last part; Mailchimp's non-subscribed file is known by it. */
  fileName: string;
  /** Columns (any case) to read as a field. */
  map?: Readonly<Record<string, ImportField>>;
  /** Every row comes in unconfirmed, whatever the file says. */
  unconfirmed?: boolean;
  /** Read everything and report, store nothing. */
  dryRun?: boolean;
  /** Who imports, for the audit log. */
  actor: Actor;
  /**
   * Told after each batch is committed (read, in a dry run), with the report so far and the line
   * of the batch's last row.
   */
  onBatch?: (report: Readonly<ImportReport>, line: number) => void | Promise<void>;
}

export interface ImportDeps {
  store: Pick<Store, 'imports' | 'suppressions' | 'audit'>;
  config: Pick<Config, 'backendUrl'>;
  /** The time a row without a join date gets; now by default. */
  now?: () => number;
}

/**
 * What a batch may take, in ms: well under the second the SQLite write lock may be held, since the
 * batch's reads and the suppression list's write come on top of its transaction.
 */
const BATCH_TARGET_MS = 200;
const FIRST_BATCH = 250;
const BATCH_MIN = 50;
/**
 * A batch's rows are held until it is committed, long enough for V8 to count them as survivors and
 * grow its young generation: 100 000 rows in batches of 5 000 peaked at 250 MB of RSS, of 1 000
 * at 175 MB, for the same time.
 */
const BATCH_MAX = 1_000;
/** The longest run of one join time kept whole in a batch (runStart). */
const RUN_MAX = 10_000;

const tally = (): Tally => ({ count: 0, lines: [] });
const count = (into: Tally, line: number) => {
  into.count++;
  if (into.lines.length < LISTED_LINES) into.lines.push(line);
};

/** A row read and kept for its batch: a signup to add, or an address to refuse. */
type Pending =
  | { line: number; kind: 'signup'; signup: ImportedSignup }
  | { line: number; kind: 'refused'; email: string; refusal: ImportRefusal };

const addressOf = (row: Pending) => (row.kind === 'signup' ? row.signup.email : row.email);

export async function importList(deps: ImportDeps, input: ImportInput): Promise<ImportResult> {
  const { store, config, now = Date.now } = deps;
  if (config.backendUrl) return { kind: 'refused', reason: 'backend-owns-signups' };
  const dryRun = input.dryRun === true;
  const records = csvRecords(input.source);
  const first = await records.next();
  if (first.done) return { kind: 'not-csv', why: { kind: 'empty' } };
  if ('problem' in first.value)
    return { kind: 'not-csv', why: { kind: 'unreadable-header', problem: first.value.problem } };
  const reader = rowReader(first.value.fields, {
    fileName: basename(input.fileName),
    map: input.map ?? {},
    unconfirmed: input.unconfirmed === true,
    now: new Date(now()).toISOString(),
  });
  if ('kind' in reader) return { kind: 'not-csv', why: reader };

  const report: ImportReport = {
    format: reader.format,
    dryRun,
    rows: 0,
    added: tally(),
    alreadyThere: tally(),
    suppressed: tally(),
    refused: { blocklisted: tally(), unsubscribed: tally(), cleaned: tally() },
    errors: {
      'bad-address': tally(),
      'bad-date': tally(),
      'bad-value': tally(),
      'broken-row': tally(),
    },
  };
  /** A dry run stores nothing, so it remembers what it would have added (one key an address). */
  const wouldAdd = new Set<string>();
  const batch: Pending[] = [];
  let batchSize = FIRST_BATCH;

  /** Stores these rows (reads them, in a dry run), then counts them. */
  async function flush(rows: Pending[]): Promise<void> {
    if (rows.length === 0) return;
    const started = performance.now();
    // The first of an address in the file is what the list gets; a repeat is already there.
    const inBatch = new Set<string>();
    const repeats: Pending[] = [];
    const unique = rows.filter((row) => {
      const key = emailKey(addressOf(row));
      const repeat = inBatch.has(key) || wouldAdd.has(key);
      inBatch.add(key);
      if (repeat) repeats.push(row);
      return !repeat;
    });
    const listed = await store.imports.present(unique.map(addressOf));
    const fresh = unique.filter((row) => !listed.has(emailKey(addressOf(row))));
    const signups = fresh.filter((row) => row.kind === 'signup');
    const suppressed = await store.suppressions.suppressedAmong(signups.map(addressOf));
    const toAdd = signups.filter((row) => !suppressed.has(emailKey(row.signup.email)));
    const refused = fresh.filter((row) => row.kind === 'refused');
    let added: Set<string>;
    if (dryRun) {
      added = new Set(toAdd.map((row) => emailKey(row.signup.email)));
      for (const key of added) wouldAdd.add(key);
    } else {
      // Last first: see runStart.
      added = await store.imports.add(toAdd.map((row) => row.signup).reverse());
      for (const refusal of REFUSALS) {
        const emails = refused.filter((row) => row.refusal === refusal).map((row) => row.email);
        if (emails.length > 0) await store.suppressions.add(emails, refusal);
      }
    }
    // Committed: now it may be counted, in the file's order.
    const there = [...repeats, ...unique.filter((row) => listed.has(emailKey(addressOf(row))))];
    for (const row of there.sort((a, b) => a.line - b.line)) count(report.alreadyThere, row.line);
    for (const row of signups) {
      const key = emailKey(row.signup.email);
      if (suppressed.has(key)) count(report.suppressed, row.line);
      // Not added: a signup of the same address was made meanwhile.
      else count(added.has(key) ? report.added : report.alreadyThere, row.line);
    }
    for (const row of refused) count(report.refused[row.refusal], row.line);
    const took = performance.now() - started;
    const scaled = Math.round((rows.length * BATCH_TARGET_MS) / Math.max(took, 1));
    batchSize = Math.min(BATCH_MAX, Math.max(BATCH_MIN, scaled));
    await input.onBatch?.(report, rows[rows.length - 1].line);
    // The site's own requests (the console imports in the site's process) go first.
    await nextTurn();
  }

  let finished = false;
  try {
    for await (const record of records) {
      report.rows++;
      if ('problem' in record) {
        count(report.errors['broken-row'], record.line);
        continue;
      }
      const verdict = reader.read(record.fields);
      if (verdict.kind === 'error') count(report.errors[verdict.error], record.line);
      else batch.push({ line: record.line, ...verdict });
      if (batch.length < batchSize) continue;
      const cut = runStart(batch);
      if (cut > 0 || batch.length >= RUN_MAX) await flush(batch.splice(0, cut || Infinity));
    }
    await flush(batch.splice(0));
    finished = true;
  } finally {
    // Also when the store failed halfway: the log says what was committed until then.
    if (!dryRun) await audit(store, input, report, finished);
  }
  return { kind: 'done', report };
}

/**
 * Where the batch's last run of rows joined at the same time starts (0: the whole batch is one).
 * This site's export lists the newest first, and signups of the same time newest first too (by
 * id): a batch goes to the store last row first, and never ends inside such a run, so the ids the
 * rows get keep that order, and the imported list exports as the same file.
 */
function runStart(rows: readonly Pending[]): number {
  const joined = (row: Pending) => (row.kind === 'signup' ? row.signup.createdAt : undefined);
  const last = joined(rows[rows.length - 1]);
  let at = rows.length - 1;
  while (at > 0 && last !== undefined && joined(rows[at - 1]) === last) at--;
  return last === undefined ? rows.length : at;
}

/** The audit log's entry: who, which file, the counts; never an address. */
function audit(
  store: ImportDeps['store'],
  { actor, fileName }: ImportInput,
  report: ImportReport,
  finished: boolean,
) {
  // A file may be named after a person ("list-from-ann@example.org.csv"): the log keeps no address.
  const name = basename(fileName)
    .replace(new RegExp(NOT_ONE_LINE, 'g'), '')
    .replace(/[^\s@]*@[^\s@]*/g, '(an address)')
    .slice(0, 100);
  const refused = REFUSALS.reduce((sum, refusal) => sum + report.refused[refusal].count, 0);
  const errors = ROW_ERRORS.reduce((sum, error) => sum + report.errors[error].count, 0);
  const counts =
    `${report.added.count} added, ${report.alreadyThere.count} already there, ` +
    `${report.suppressed.count} suppressed, ${refused} refused, ${errors} with errors`;
  const action = `import ${JSON.stringify(name)} (${report.format}${finished ? '' : ', stopped'})`;
  return store.audit.record({
    ...actor,
    action: `${action}: ${counts}`,
    addresses: report.added.count,
  });
}
