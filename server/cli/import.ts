// `waitlist import <file.csv>` and `waitlist confirm --resend`: argv to the operations'
// input (waitlist/import.ts, waitlist/confirm-resend.ts), and their outcomes to lines. An import
// prints a line as each batch is committed (at most one a second), then the report.
import fs from 'node:fs';
import { CLI_ACTOR } from '../console/accounts';
import { resendConfirmations } from '../waitlist/confirm-resend';
import { IMPORT_FIELDS, importList, type ImportField, type ImportReport } from '../waitlist/import';
import { FORMAT_NAMES, linesText, notCsvText, reportLines } from '../waitlist/import-report';
import {
  CommandError,
  UsageError,
  type CliIo,
  type CommandRow,
  type OptionRow,
} from './command-table';

export const IMPORT_OPTIONS = {
  map: {
    type: 'string',
    multiple: true,
    value: 'COLUMN=FIELD',
    help: `import: read COLUMN as FIELD (${IMPORT_FIELDS.join(', ')}); repeat for more`,
    check: (value: string) => void mapping(value),
  },
  unconfirmed: {
    type: 'boolean',
    help: 'import: every row comes in unconfirmed (then: confirm --resend)',
  },
  resend: {
    type: 'boolean',
    help: 'confirm: mail a confirmation to imported unconfirmed addresses, or to one',
  },
} as const satisfies Record<string, OptionRow>;

export interface ImportOptions {
  map?: string[];
  unconfirmed?: boolean;
  resend?: boolean;
  'dry-run'?: boolean;
}

/** `COLUMN=FIELD`: split at the last '=', so a column's own name may hold one. */
function mapping(text: string): [string, ImportField] {
  const at = text.lastIndexOf('=');
  const column = text.slice(0, at).trim();
  const field = text.slice(at + 1).trim();
  if (at < 0 || column === '')
    throw new UsageError(`--map: not COLUMN=FIELD: ${text} (e.g. --map "E-mail=email")`);
  const known = IMPORT_FIELDS.find((name) => name === field);
  if (!known)
    throw new UsageError(`--map: unknown field: ${field} (one of ${IMPORT_FIELDS.join(', ')})`);
  return [column, known];
}

/** The file's bytes: stdin for `-`; a file that cannot be opened is a clear refusal. */
async function sourceOf(file: string, io: CliIo): Promise<AsyncIterable<Uint8Array | string>> {
  if (file === '-') {
    if (!io.stdin) throw new CommandError('no stdin to read here');
    return io.stdin;
  }
  try {
    return (await fs.promises.open(file)).createReadStream();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'not readable' : code;
    throw new CommandError(`cannot read ${file}: ${why}`);
  }
}

/** Progress lines come at most this often: 100 000 rows make a handful, not hundreds. */
const PROGRESS_EVERY_MS = 1_000;

function progressLine(report: Readonly<ImportReport>, line: number): string {
  const { added, alreadyThere, suppressed } = report;
  const verb = report.dryRun ? 'read' : 'committed';
  return (
    `… ${verb} to line ${line}: ${added.count} ${report.dryRun ? 'would be added' : 'added'}, ` +
    `${alreadyThere.count} already there, ${suppressed.count} suppressed\n`
  );
}

function reportText(report: ImportReport, file: string): string {
  const head = `${file}: ${FORMAT_NAMES[report.format]}, ${report.rows} row(s)\n`;
  const lines = reportLines(report).map(({ label, tally }) => {
    const which = linesText(tally);
    return `  ${label}: ${tally.count}${which ? ` (${which})` : ''}\n`;
  });
  const foot = report.dryRun ? 'Dry run: nothing was stored.\n' : '';
  return head + lines.join('') + foot;
}

const REFUSED = {
  'backend-owns-signups':
    'BACKEND_URL is set: signups live in the backend, so a list is imported there.',
  'no-site-url':
    'a confirmation mail needs SITE_URL, the public address of this site, for its link.',
} as const;

export const IMPORT_ROWS: CommandRow<ImportOptions>[] = [
  {
    name: 'import',
    args: '<file.csv>',
    help:
      "add signups from CSV (this site's export, listmonk's, Mailchimp's; - for stdin), " +
      'mailing no one; --dry-run reports only',
    needs: 'a CSV file (or - for stdin)',
    onlyOne: true,
    store: 'writes',
    async run(context, [file], options, io) {
      const map = Object.fromEntries((options.map ?? []).map(mapping));
      const name = file === '-' ? 'stdin' : file;
      let shown = 0;
      const result = await importList(context, {
        source: await sourceOf(file, io),
        fileName: name,
        map,
        unconfirmed: options.unconfirmed === true,
        dryRun: options['dry-run'] === true,
        actor: { account: CLI_ACTOR },
        async onBatch(report, line) {
          if (Date.now() - shown < PROGRESS_EVERY_MS) return;
          shown = Date.now();
          await io.out(progressLine(report, line));
        },
      });
      if (result.kind === 'refused') throw new CommandError(REFUSED[result.reason]);
      if (result.kind === 'not-csv')
        throw new CommandError(
          `${name} is not a CSV file this import reads: ${notCsvText(result.why)}; nothing was stored`,
        );
      await io.out(reportText(result.report, name));
      const errors = Object.values(result.report.errors).some((tally) => tally.count > 0);
      return errors ? 1 : 0;
    },
  },
  {
    name: 'confirm',
    args: '--resend [<email>]',
    help:
      'mail a confirmation to the imported unconfirmed addresses (or one address): the expiry ' +
      'counts from that mail',
    store: 'writes',
    async run(context, args, options, io) {
      if (!options.resend)
        throw new UsageError('confirm needs --resend (and an address, or none for every import)');
      if (args.length > 1) throw new UsageError('confirm --resend takes one address at most');
      const result = await resendConfirmations(context, {
        email: args[0],
        actor: { account: CLI_ACTOR },
      });
      const sends = 'the running site writes and sends';
      switch (result.kind) {
        case 'refused':
          throw new CommandError(REFUSED[result.reason]);
        case 'all':
          await io.out(
            `${result.due} imported address(es) due a confirmation mail: ${sends} them ` +
              '(see: waitlist stats)\n',
          );
          return 0;
        case 'one': {
          const said = {
            due: `${result.email} is due a confirmation mail: ${sends} it`,
            confirmed: `${result.email} is confirmed already: nothing to send`,
            undeliverable: `${result.email} is undeliverable: no mail goes to it`,
            'not-on-list': `${result.email} is not on the waitlist`,
          }[result.outcome];
          await io.out(`${said}\n`);
          return result.outcome === 'due' || result.outcome === 'confirmed' ? 0 : 1;
        }
      }
    },
  },
];
