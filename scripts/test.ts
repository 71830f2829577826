// `npm test`: Jest twice. First the server, client and browser projects side by side, then the
// timed project (jest.config.js) alone, in one process, so that a check of how long a server
// takes meets no crowd but its own. Arguments go to both runs: `npm test -- test/server/x.test.ts`
// runs that file in whichever run holds it, and `--json --outputFile=<file>` writes one report of
// both. With `--selectProjects` the caller has chosen, and Jest runs once as asked.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const JEST = require.resolve('jest/bin/jest');
const RUNS = [
  ['--selectProjects', 'server', 'client', 'e2e'],
  ['--selectProjects', 'timed', '--runInBand'],
];

/** The fields of Jest's --json report that count, added up over runs. */
const COUNTS = [
  'numTotalTests',
  'numPassedTests',
  'numFailedTests',
  'numPendingTests',
  'numTodoTests',
  'numTotalTestSuites',
  'numPassedTestSuites',
  'numFailedTestSuites',
  'numPendingTestSuites',
  'numRuntimeErrorTestSuites',
] as const;

type Report = Record<(typeof COUNTS)[number], number> & {
  success: boolean;
  startTime: number;
  testResults: unknown[];
};

async function main(args: string[]): Promise<number> {
  if (args.some((arg) => arg === '--selectProjects' || arg.startsWith('--selectProjects=')))
    return await jest(args);
  const { json, outputFile, rest } = reportOptions(args);
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'orgnote-jest-report-'));
  try {
    const reports: string[] = [];
    let status = 0;
    for (const [i, run] of RUNS.entries()) {
      const report = path.join(folder, `${i}.json`);
      reports.push(report);
      // Either run may find none of the files asked for; both finding none is the failure.
      // The caller's arguments first: --selectProjects takes every word after it as a name.
      const code = await jest([
        ...rest,
        ...run,
        '--passWithNoTests',
        '--json',
        `--outputFile=${report}`,
      ]);
      if (code !== 0) status = code;
      if (interrupted) return 130;
    }
    const merged = merge(
      reports.map((file) => JSON.parse(fs.readFileSync(file, 'utf8')) as Report),
    );
    if (json) {
      const text = JSON.stringify(merged);
      if (outputFile) fs.writeFileSync(outputFile, text);
      else process.stdout.write(`${text}\n`);
    }
    if (merged.numTotalTestSuites === 0 && !args.includes('--passWithNoTests')) {
      console.error('No tests found in either run (see above).');
      return 1;
    }
    return status;
  } catch (err) {
    // A run that ended without its report (a crash in a global setup) has said why above.
    console.error(`No report of both runs: ${String(err)}`);
    return 1;
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

/** Takes --json and --outputFile out of the arguments: this script writes the one report. */
function reportOptions(args: string[]) {
  let json = false;
  let outputFile: string | undefined;
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--json') json = true;
    else if (arg === '--outputFile') outputFile = args[++i];
    else if (arg.startsWith('--outputFile=')) outputFile = arg.slice('--outputFile='.length);
    else rest.push(arg);
  }
  return { json, outputFile, rest };
}

function merge(reports: Report[]): Report {
  const merged = { ...reports[0], testResults: reports.flatMap((r) => r.testResults) };
  for (const key of COUNTS) merged[key] = reports.reduce((sum, r) => sum + (r[key] ?? 0), 0);
  merged.success = reports.every((r) => r.success);
  merged.startTime = Math.min(...reports.map((r) => r.startTime));
  return merged;
}

function jest(args: string[]): Promise<number> {
  const child = spawn(process.execPath, [JEST, ...args], { stdio: 'inherit' });
  return new Promise((resolve) => child.once('exit', (code) => resolve(code ?? 1)));
}

// Ctrl-C reaches Jest too (one process group); the second run is then not started.
let interrupted = false;
process.on('SIGINT', () => (interrupted = true));

void main(process.argv.slice(2)).then((code) => (process.exitCode = code));
