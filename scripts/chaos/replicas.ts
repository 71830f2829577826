// The three replicas of the chaos run: the built site, started by the launcher
// (scripts/lib/launch/server.ts), each on its own port, data folder and mail listener, all on one
// PostgreSQL. A replica can be killed with SIGKILL and started again on the same port; its log
// goes to a file beside its folder, appended across restarts.
import fs from 'node:fs';
import path from 'node:path';
import { startBuiltServer, type BuiltServer, type Settings } from '../lib/launch/server';

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

export function replica(index: number, port: number, folder: string, env: Settings) {
  const dataDir = path.join(folder, `replica-${index}`);
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const log = path.join(folder, `replica-${index}.log`);
  let server: BuiltServer | undefined;

  const self: Replica = {
    index,
    port,
    up: false,
    log,
    async start() {
      try {
        server = await startBuiltServer({
          env: { ...env, PORT: String(port), DATA_DIR: dataDir },
          logFile: log,
          readyPath: '/readyz',
          timeoutMs: START_TIMEOUT_MS,
        });
      } catch (err) {
        throw new Error(`replica ${index}: ${(err as Error).message.split('\n')[0]}; see ${log}`);
      }
      self.up = true;
    },
    async kill() {
      self.up = false;
      const at = Date.now();
      await server?.stop('SIGKILL');
      return at;
    },
    async stop() {
      self.up = false;
      await server?.stop('SIGKILL');
    },
  };
  return self;
}
