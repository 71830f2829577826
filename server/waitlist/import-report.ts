// An import's report in words, the same for the CLI and the console: each kind of row with its
// count and its first line numbers, and why a file is not one the import reads.
import { RECORD_MAX_BYTES } from './csv-records';
import type { ImportFormat } from './import-formats';
import {
  LISTED_LINES,
  REFUSALS,
  ROW_ERRORS,
  type ImportReport,
  type NotCsv,
  type Tally,
} from './import';

export const FORMAT_NAMES: Record<ImportFormat, string> = {
  site: "this site's export",
  listmonk: "listmonk's subscriber export",
  mailchimp: "Mailchimp's audience export",
  mapped: 'a CSV file read through --map',
};

/** One line of the report: a kind of row, how many, and which. */
export interface ReportLine {
  label: string;
  tally: Tally;
}

/**
 * The report's lines: added, already there and suppressed always; each refusal and error only
 * when a row had it.
 */
export function reportLines(report: ImportReport): ReportLine[] {
  const { dryRun } = report;
  const refusals: Record<(typeof REFUSALS)[number], string> = {
    blocklisted: 'refused, blocklisted in listmonk',
    unsubscribed: 'refused, unsubscribed in Mailchimp',
    cleaned: 'refused, cleaned (bounced) in Mailchimp',
  };
  const errors: Record<(typeof ROW_ERRORS)[number], string> = {
    'bad-address': 'skipped, not an address',
    'bad-date': 'skipped, a date that cannot be read',
    'bad-value': 'skipped, a value out of place',
    'broken-row': 'skipped, not a CSV record (a broken quote, the wrong number of fields)',
  };
  return [
    { label: dryRun ? 'would be added' : 'added', tally: report.added },
    { label: 'already on the list, left as they are', tally: report.alreadyThere },
    { label: 'skipped, suppressed (left before)', tally: report.suppressed },
    ...REFUSALS.map((refusal) => ({
      label: `${refusals[refusal]} (${dryRun ? 'would be' : 'now'} suppressed)`,
      tally: report.refused[refusal],
    })),
    ...ROW_ERRORS.map((error) => ({ label: errors[error], tally: report.errors[error] })),
  ].filter((line, i) => i < 3 || line.tally.count > 0);
}

/** "lines 3, 17 and 40", "the first 20: lines 3, …" */
export function linesText({ count, lines }: Tally): string {
  if (lines.length === 0) return '';
  const list = lines.length === 1 ? `line ${lines[0]}` : `lines ${lines.join(', ')}`;
  return count > LISTED_LINES ? `the first ${LISTED_LINES}: ${list}` : list;
}

/** Why the file is none this import reads, in one sentence. */
export function notCsvText(why: NotCsv): string {
  switch (why.kind) {
    case 'empty':
      return 'it is empty';
    case 'unreadable-header':
      return {
        'not-utf8': 'its first line is not UTF-8 text',
        'broken-quote': 'its first line is not a CSV header (a broken quote)',
        'too-long': `its first line is longer than ${RECORD_MAX_BYTES / 1024} KiB`,
      }[why.problem];
    case 'no-address-column':
      return (
        'no column holds the address: expected email (this site, listmonk), Email Address ' +
        '(Mailchimp), or --map COLUMN=email'
      );
    case 'mapped-column-missing':
      return `--map names a column the file does not have: ${why.column}`;
  }
}
