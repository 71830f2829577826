// The built CLI (dist/server/waitlist.js) run as an operator runs it, with the peak-RSS reporter
// preloaded (peak-rss.cjs), for bench:mail and bench:store's export: the wall time from spawn to
// exit, the peak resident memory, the exit code. Its stdout is the caller's to read; its stderr
// is passed on, less the reporter's line.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import type { Readable } from 'node:stream';
import { ROOT } from '../../lib/root';

export interface MeasuredRun {
  seconds: number;
  peakRssBytes: number;
  code: number | null;
}

/** Starts `waitlist …args`; `done` resolves once it has exited and its output is read. */
export function runMeasuredCli(
  args: string[],
  env: NodeJS.ProcessEnv,
): { child: ChildProcessByStdio<null, Readable, Readable>; done: Promise<MeasuredRun> } {
  const started = process.hrtime.bigint();
  const child = spawn(
    process.execPath,
    ['--require', path.join(__dirname, 'peak-rss.cjs'), 'dist/server/waitlist.js', ...args],
    {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let peakRssBytes = 0;
  readline.createInterface({ input: child.stderr }).on('line', (line) => {
    const peak = /^peak-rss-kib (\d+)$/.exec(line);
    if (peak) peakRssBytes = Number(peak[1]) * 1024;
    else process.stderr.write(`${line}\n`);
  });
  const done = new Promise<MeasuredRun>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) =>
      resolve({ seconds: Number(process.hrtime.bigint() - started) / 1e9, peakRssBytes, code }),
    );
  });
  return { child, done };
}
