// The three replicas of the chaos run: the built site (dist/server/index.js) as `npm start` runs
// it, each on its own port, data folder and mail listener, all on one PostgreSQL. A replica can be
// killed with SIGKILL and started again on the same port; its log goes to a file in its folder,
// appended across restarts.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../site-process';

export interface Replica {
  index: number;
  port: number;
  /** Whether it listens now: load goes only to replicas that are up. */
  up: boolean;
  /** Starts the process and resolves once /readyz answers 200 (its database answers). */
  start(): Promise<void>;
  /** SIGKILL; resolves with the time of the kill once the process has ended. */
  kill(): Promise<number>;
  /** Ends the process (SIGKILL) if it runs; for the run's end and Ctrl-C. */
  stop(): Promise<void>;
  log: string;
}

const START_TIMEOUT_MS = 30_000;

export function replica(index: number, port: number, folder: string, env: NodeJS.ProcessEnv) {
  const dataDir = path.join(folder, `replica-${index}`);
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const log = path.join(folder, `replica-${index}.log`);
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();

  const self: Replica = {
    index,
    port,
    up: false,
    log,
    async start() {
      const out = fs.openSync(log, 'a');
      const started = spawn(process.execPath, [path.join(ROOT, 'dist/server/index.js')], {
        env: {
          PATH: process.env.PATH,
          NODE_ENV: 'production',
          HOST: '127.0.0.1',
          PORT: String(port),
          DATA_DIR: dataDir,
          ...env,
        },
        stdio: ['ignore', out, out],
      });
      fs.closeSync(out);
      child = started;
      exited = new Promise((resolve) => started.once('exit', () => resolve()));
      const deadline = Date.now() + START_TIMEOUT_MS;
      while (!(await healthy(port))) {
        if (started.exitCode !== null || started.signalCode !== null)
          throw new Error(`replica ${index} exited while starting; see ${log}`);
        if (Date.now() > deadline) throw new Error(`replica ${index} did not start; see ${log}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      self.up = true;
    },
    async kill() {
      self.up = false;
      const at = Date.now();
      child?.kill('SIGKILL');
      await exited;
      return at;
    },
    async stop() {
      self.up = false;
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
  return self;
}

async function healthy(port: number): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/readyz`, {
      signal: AbortSignal.timeout(1_000),
    });
    return res.ok;
  } catch {
    return false;
  }
}
