// Starts the built production server as a child process for the measuring scripts (bench, load,
// lighthouse), on 127.0.0.1 and a free port, with its log going to a file.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { liveMemory, rssOf, type LiveMemory } from './inspector';

export const ROOT = path.resolve(__dirname, '..');

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

interface SiteProcess {
  url: string;
  child: ChildProcess;
  /** Its DATA_DIR (the waitlist database and the log), removed by stop(). */
  dataDir: string;
  /** Resident memory of the server process in bytes (Linux /proc). */
  rss(): number;
  /** Heap and RSS after a full collection; only when started with `inspect`. */
  liveMemory(): Promise<LiveMemory>;
  stop(): Promise<void>;
}

/**
 * The server's stdout goes to a file, as a log collector would drain it: a pipe read by a busy
 * load-generating process would fill up and stall the server's writes.
 */
/**
 * `root` is the checkout whose build runs (a baseline build, scripts/bench/baseline.ts); this one
 * by default.
 */
export async function startSiteProcess(
  env: NodeJS.ProcessEnv = {},
  root = ROOT,
  { inspect = false } = {},
): Promise<SiteProcess> {
  const port = await freePort();
  const inspectPort = inspect ? await freePort() : undefined;
  const inspectFlags = inspectPort ? [`--inspect=127.0.0.1:${inspectPort}`] : [];
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'orgnote-site-'));
  const log = fs.openSync(path.join(dataDir, 'site.log'), 'a');
  const child = spawn(process.execPath, [...inspectFlags, 'dist/server/index.js'], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      ...env,
      PORT: String(port),
    },
    stdio: ['ignore', log, 'inherit'],
  });
  fs.closeSync(log); // the child has its own copy
  const url = `http://127.0.0.1:${port}`;
  // A start takes about a second, ten on a crowded machine: the deadline only stops a hang.
  const deadline = Date.now() + 45_000;
  while (Date.now() < deadline && child.exitCode === null) {
    if (
      await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    ) {
      return {
        url,
        child,
        dataDir,
        rss: () => rssOf(child.pid!),
        liveMemory: () => {
          if (!inspectPort) throw new Error('started without inspect');
          return liveMemory(inspectPort, child.pid!);
        },
        // Stopping also removes the throwaway data folder (waitlist and log).
        stop: () =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }).then(() => fs.rmSync(dataDir, { recursive: true, force: true })),
      };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const exited = child.exitCode !== null;
  child.kill('SIGKILL');
  fs.rmSync(dataDir, { recursive: true, force: true });
  throw new Error(
    exited ? `the site exited with ${child.exitCode} (is dist/ built?)` : 'the site did not start',
  );
}
