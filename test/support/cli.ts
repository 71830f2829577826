// `waitlist …` in this process, through the entry the binary runs (server/cli/waitlist.ts main):
// the environment only PATH and the settings given, as a spawned run's would be, stdout and
// stderr captured, `input` on stdin. What only a process of its own shows (the exit status, a
// pipe on stdin, the supported-node check, --version's stamp in the build) stays with the tests
// that spawn the built CLI: runBuiltCli here, supported-node.test.ts and version.test.ts.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { main } from '../../server/cli/waitlist';
import { openSqliteStore } from '../../server/store';

const CLI = path.resolve(__dirname, '../../dist/server/waitlist.js');

export interface CliRun {
  code: number | null;
  out: string;
  err: string;
}

/** A stream that keeps what is written to it. */
function captured() {
  let text = '';
  const stream = new Writable({
    decodeStrings: false,
    write(chunk: string, _encoding, done) {
      text += chunk;
      done();
    },
  });
  return { stream, text: () => text };
}

/** Runs `waitlist …args` to its end, with `input` on its stdin. */
export async function runCli(
  env: Record<string, string>,
  args: string[],
  { input }: { input?: string } = {},
): Promise<CliRun> {
  const stdout = captured();
  const stderr = captured();
  const stdin = Readable.from(input === undefined ? [] : [input]);
  const code = await main(
    args,
    { PATH: process.env.PATH, ...env },
    {
      stdin,
      stdout: stdout.stream,
      stderr: stderr.stream,
    },
  );
  return { code, out: stdout.text(), err: stderr.text() };
}

/** The built CLI (dist/server/waitlist.js) as operators run it: a process of its own. */
export function runBuiltCli(
  env: Record<string, string>,
  args: string[],
  { input, timeoutMs = 45_000 }: { input?: string; timeoutMs?: number } = {},
): CliRun {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH, ...env },
    input,
    encoding: 'utf8',
    timeout: timeoutMs,
  });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

/**
 * Opens the SQLite store in `dataDir` as the site would, for `read`, and closes it again: what a
 * CLI run left behind, seen between runs.
 */
export async function withStore<T>(
  dataDir: string,
  read: (store: ReturnType<typeof openSqliteStore>) => Promise<T>,
): Promise<T> {
  const store = openSqliteStore({ dataDir });
  try {
    return await read(store);
  } finally {
    await store.close();
  }
}
