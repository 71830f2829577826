// The built production server (dist/server/index.js) in a process of its own, as `npm start` and
// the Docker image run it, for the tests, the benchmarks and the chaos run. It listens on
// 127.0.0.1; its environment is PATH and the settings given, nothing of the caller's shell; it
// counts as started once its probe answers 200 from a socket of its own process.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../root';
import { freePort } from './ports';
import { listensOn } from './sockets';

export type Settings = Record<string, string | undefined>;

export interface BuiltServerOptions {
  /**
   * Settings over the defaults: NODE_ENV=production, HOST=127.0.0.1, a free PORT and a fresh
   * DATA_DIR (removed by stop()) unless these name their own.
   */
  env?: Settings;
  /** The checkout whose build runs (an earlier release's, a baseline's); this one by default. */
  root?: string;
  /**
   * A file the output is appended to (relative to the DATA_DIR), as a log collector would drain
   * it: a pipe read by a busy load generator could fill up and stall the server's writes. Without
   * one, the output is kept in memory.
   */
  logFile?: string;
  /** What started means: /healthz answers, or /readyz (its store answers too). */
  readyPath?: '/healthz' | '/readyz';
  /**
   * A start that takes longer is a hang. It takes about a second, ten on a crowded machine; the
   * default is within Jest's test timeout (jest.config.js), so a test's failure shows the output.
   */
  timeoutMs?: number;
  /** Also listen for the inspector, on a free port (`inspectPort`). */
  inspect?: boolean;
  /** Node's own options, before the script (e.g. --expose-gc, --require a preload). */
  nodeArgs?: string[];
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface BuiltServer {
  child: ChildProcess;
  port: number;
  /** http://127.0.0.1:<port> */
  url: string;
  dataDir: string;
  /** With `inspect`: where its inspector listens. */
  inspectPort?: number;
  /** What it has written so far (stdout and stderr). */
  output(): string;
  exited: Promise<Exit>;
  /**
   * Sends `signal` unless it has ended, and resolves once it has (SIGKILL after 15 s); removes
   * the DATA_DIR the launcher made.
   */
  stop(signal?: NodeJS.Signals): Promise<Exit>;
}

/**
 * Node's options for the site, as the image (Dockerfile's CMD) and `npm start` run it too
 * (test/deploy/node-flags.test.ts holds the three together). A young generation of at most 8 MB a
 * half: under a spike V8 would otherwise grow it to 64 MB a half and keep the pages, about 50 MB
 * of resident memory more after the spike (docs/benchmarks.md, "Memory").
 */
export const SITE_NODE_FLAGS = ['--max-semi-space-size=8'];

const START_DEADLINE_MS = 45_000;
const STOP_DEADLINE_MS = 15_000;

export async function startBuiltServer(options: BuiltServerOptions = {}): Promise<BuiltServer> {
  const { env = {} } = options;
  const madeDataDir = env.DATA_DIR ? undefined : mkTemp();
  const dataDir = env.DATA_DIR || madeDataDir!;
  const removeDataDir = () => {
    if (madeDataDir) fs.rmSync(madeDataDir, { recursive: true, force: true });
  };
  // freePort() can only say a port was free a moment ago: another process (a second clone's test
  // run, or the source port of some outgoing connection) may bind it before the child does. That
  // start fails at once with EADDRINUSE, and another port is tried. A PORT the caller set is kept.
  for (let attempt = 1; ; attempt++) {
    try {
      const port = env.PORT ? Number(env.PORT) : await freePort();
      const server = await startOnPort(port, dataDir, options);
      return {
        ...server,
        async stop(signal = 'SIGTERM') {
          const { child } = server;
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          const killer = setTimeout(() => child.kill('SIGKILL'), STOP_DEADLINE_MS).unref();
          const how = await server.exited;
          clearTimeout(killer);
          removeDataDir();
          return how;
        },
      };
    } catch (err) {
      if (attempt >= 5 || env.PORT || !(err instanceof PortTakenError)) {
        removeDataDir();
        throw err;
      }
    }
  }
}

class PortTakenError extends Error {}

function mkTemp(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'orgnote-site-'));
}

async function startOnPort(
  port: number,
  dataDir: string,
  {
    env,
    root = ROOT,
    logFile,
    readyPath = '/healthz',
    timeoutMs = START_DEADLINE_MS,
    inspect,
    nodeArgs = [],
  }: BuiltServerOptions,
): Promise<Omit<BuiltServer, 'stop'>> {
  const inspectPort = inspect ? await freePort() : undefined;
  const log = logFile ? path.resolve(dataDir, logFile) : undefined;
  const logStart = log && fs.existsSync(log) ? fs.statSync(log).size : 0;
  const out = log ? fs.openSync(log, 'a') : 'pipe';
  const child = spawn(
    process.execPath,
    [
      ...SITE_NODE_FLAGS,
      ...(inspectPort ? [`--inspect=127.0.0.1:${inspectPort}`] : []),
      ...nodeArgs,
      'dist/server/index.js',
    ],
    {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'production',
        HOST: '127.0.0.1',
        ...env,
        DATA_DIR: dataDir,
        PORT: String(port),
      },
      stdio: ['ignore', out, out],
    },
  );
  if (typeof out === 'number') fs.closeSync(out); // the child has its own copy
  let collected = '';
  const collect = (chunk: Buffer) => void (collected += chunk.toString());
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const output = log ? () => fs.readFileSync(log).subarray(logStart).toString() : () => collected;
  const closed = new Promise((resolve) => child.once('close', resolve));
  const exited = new Promise<Exit>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  // Ready means the probe answers 200 from our child: a server that took the port first would
  // answer it too. The deadline only stops a run that would otherwise hang; an exit ends the wait
  // at once.
  let exit: Exit | undefined;
  void exited.then((how) => (exit = how));
  const deadline = Date.now() + timeoutMs;
  // Each probe is bounded: whatever else holds the port may accept and never answer.
  while (!(await answers(port, readyPath, 1_000)) || !listensOn(child.pid!, port)) {
    if (exit) {
      await closed; // 'exit' may come before the last of the output, 'close' after it
      const taken = new RegExp(`EADDRINUSE.*:${port}\\b`).test(output());
      const how = exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
      throw new (taken ? PortTakenError : Error)(
        `server exited with ${how} before listening; its output:\n${output()}`,
      );
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      await exited;
      throw new Error(
        `server did not answer ${readyPath} within ${timeoutMs / 1000} s; its output:\n${output()}`,
      );
    }
    await Promise.race([new Promise((r) => setTimeout(r, 50)), exited]);
  }
  return {
    child,
    port,
    url: `http://127.0.0.1:${port}`,
    dataDir,
    inspectPort,
    output,
    exited,
  };
}

/** Does the server on this port answer its health probe with 200 (within `timeoutMs`)? */
export function isHealthy(port: number, timeoutMs?: number): Promise<boolean> {
  return answers(port, '/healthz', timeoutMs);
}

function answers(port: number, probe: string, timeoutMs?: number): Promise<boolean> {
  return new Promise((resolve) => {
    http
      .get({ host: '127.0.0.1', port, path: probe, agent: false, timeout: timeoutMs }, (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      })
      .on('timeout', function (this: http.ClientRequest) {
        this.destroy();
      })
      .on('error', () => resolve(false));
  });
}
