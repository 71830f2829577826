// Ends a private PostgreSQL server that outlives the process that started it (postgres.ts): the
// server runs detached, so nothing else would stop it after a crash or a kill.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import type net from 'node:net';
import path from 'node:path';

/**
 * pg_ctl starts the server detached, so it would outlive a process (a test's, a bench's) that
 * crashed, was killed, or forgot close(). A watcher process reads a pipe from us: the
 * postmaster's PID after each start, an empty line after each stop. Once the pipe closes
 * (close(), or our process ending in any way, SIGKILL included) and `outlive` has ended too (a
 * server the whole test run shares lives as long as the run's main process), it ends a server
 * still running with SIGQUIT (what pg_ctl's immediate stop sends: no shutdown checkpoint, the
 * data is thrown away anyway) and removes the folder.
 * By PID rather than with pg_ctl, which needs the folder: Jest's global teardown may have removed
 * it by then. (A server whose folder is gone also stops by itself, within a minute, when it finds
 * its postmaster.pid missing.) Not an 'exit' handler: inside Jest, `process` is a per-file copy
 * whose 'exit' never fires, and no handler runs on SIGKILL. The watcher is detached (a session of
 * its own), so a Ctrl-C that ends the run does not end it too.
 */
export function guardAgainstLeftovers(
  dataDir: string,
  outlive?: number,
): {
  started(): void;
  stopped(): void;
  close(): Promise<void>;
} {
  const args = [dataDir, String(outlive ?? '')];
  const watcher = spawn('/bin/sh', ['-c', CLEAN_UP_AFTER_EOF, 'cleanup', ...args], {
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  const pipe = watcher.stdin as unknown as net.Socket;
  const exited = new Promise<void>((resolve) => watcher.once('exit', () => resolve()));
  // Neither the watcher nor its pipe keeps our process alive: it may end whenever it is done.
  watcher.unref();
  pipe.unref();
  return {
    started() {
      pipe.write(`${postmasterPid(dataDir) ?? ''}\n`);
    },
    stopped() {
      pipe.write('\n');
    },
    async close() {
      // Held until the folder is gone, or a script ending with `await close()` would exit first.
      watcher.ref();
      pipe.ref();
      pipe.end();
      await exited;
    },
  };
}

/**
 * The watcher's script ($1: the folder, $2: a PID to outlive or ''). A process that ended stays a
 * zombie until its parent or init reaps it (seconds, in some containers), so "running" means
 * present and not a zombie. No event tells a shell that an unrelated process ended: once a
 * second is soon enough for a server nobody uses any more. The postmaster's children have ended
 * when it has: it waits for them (and kills them after 5 s) before it exits.
 */
const CLEAN_UP_AFTER_EOF = `
  pid=
  while read -r line; do pid=$line; done
  running() { [ -r /proc/$1/status ] && ! grep -q '^State:[[:space:]]*Z' /proc/$1/status; }
  if [ -n "$2" ]; then while running "$2"; do sleep 1; done; fi
  if [ -n "$pid" ] && kill -QUIT "$pid" 2>/dev/null; then
    for i in $(seq 200); do running "$pid" || break; sleep 0.05; done
  fi
  rm -rf "$1"`;

/** The server's main process, from its cluster's lock file (gone once it has stopped). */
export function postmasterPid(dataDir: string): number | undefined {
  try {
    return Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return undefined;
  }
}
