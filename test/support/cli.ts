// The built CLI (dist/server/waitlist.js) as operators run it: a process of its own, its
// environment only PATH and the settings given.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { openSqliteStore } from '../../server/store';

const CLI = path.resolve(__dirname, '../../dist/server/waitlist.js');

export interface CliRun {
  code: number | null;
  out: string;
  err: string;
}

/** Runs `waitlist …args` to its end, with `input` on its stdin. */
export function runCli(
  env: Record<string, string>,
  args: string[],
  { input, timeoutMs = 10_000 }: { input?: string; timeoutMs?: number } = {},
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
