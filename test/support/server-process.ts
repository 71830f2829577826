// Starts the built production server (dist/server/index.js) as a child process, the way
// `npm start` and the Docker image run it, and waits until it listens.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { freePort } from '../../scripts/site-process';
import { tempDataDir } from './config';
import { releasePort, reservePort } from './ports';

export interface ServerProcess {
  child: ChildProcess;
  port: number;
  url: string;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const ENTRY = path.resolve(__dirname, '../../dist/server/index.js');
/** Within Jest's test timeout (jest.config.js), so that the failure shows the server's output. */
const START_DEADLINE_MS = 45_000;

export async function startServerProcess(env: Record<string, string> = {}): Promise<ServerProcess> {
  // freePort() can only say a port was free a moment ago: another process (a second clone's test
  // run, or the source port of some outgoing connection) may bind it before the child does. That
  // start fails at once with EADDRINUSE, and another port is tried. A PORT the caller set is kept.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnPort(env.PORT === undefined ? await freePort() : Number(env.PORT), env);
    } catch (err) {
      if (attempt >= 5 || env.PORT !== undefined || !(err instanceof PortTakenError)) throw err;
    }
  }
}

/**
 * The built server with its metrics on a second port, for one describe block: the port is
 * reserved from its own band when the block is declared, and the server killed after the block.
 */
export function serverWithMetrics() {
  const metricsPort = reservePort(30_000, 30_999);
  let server: ServerProcess | undefined;
  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await server?.exited;
    releasePort(metricsPort);
  });
  return {
    metricsPort,
    async start(env: Record<string, string> = {}): Promise<ServerProcess> {
      server = await startServerProcess({
        METRICS_PORT: String(metricsPort),
        LOG_LEVEL: 'warn',
        ...env,
      });
      return server;
    },
  };
}

class PortTakenError extends Error {}

async function startOnPort(port: number, env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, [ENTRY], {
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'info',
      DATA_DIR: tempDataDir(),
      SIGNUP_RATE_LIMIT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const closed = new Promise((resolve) => child.once('close', resolve));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const collect = (chunk: Buffer) => void (output += chunk.toString());
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  // Ready means /healthz answers, whatever the log level prints, from our child: a server that
  // took the port first would answer it too. The deadline only stops a run that would otherwise
  // hang (a start takes about a second, ten on a crowded machine); an exit ends the wait at once.
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  void exited.then((how) => (exit = how));
  const deadline = Date.now() + START_DEADLINE_MS;
  // Each probe is bounded: whatever else holds the port may accept and never answer.
  while (!(await isHealthy(port, 1_000)) || !listensOn(child.pid!, port)) {
    if (exit) {
      await closed; // 'exit' may come before the last of the output, 'close' after it
      const taken = new RegExp(`EADDRINUSE.*:${port}\\b`).test(output);
      const how = exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
      throw new (taken ? PortTakenError : Error)(
        `server exited with ${how} before listening; its output:\n${output}`,
      );
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(
        `server did not answer /healthz within ${START_DEADLINE_MS / 1000} s; its output:\n${output}`,
      );
    }
    await Promise.race([new Promise((r) => setTimeout(r, 50)), exited]);
  }
  return { child, port, url: `http://127.0.0.1:${port}`, output: () => output, exited };
}

/**
 * Is `port` on 127.0.0.1 a listening socket of process `pid`? Linux's /proc/net/tcp names each
 * socket's inode, and /proc/<pid>/fd links to the inodes the process holds. Elsewhere: assumed.
 */
function listensOn(pid: number, port: number): boolean {
  let table: string;
  try {
    table = fs.readFileSync('/proc/net/tcp', 'utf8');
  } catch {
    return true;
  }
  // local_address is hex IP:port (127.0.0.1 is 0100007F in the kernel's byte order); 0A is LISTEN.
  const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const inodes = table
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields[1] === local && fields[3] === '0A')
    .map((fields) => `socket:[${fields[9]}]`);
  // Something answered /healthz on the port, so a table without it is one this parser misreads.
  if (inodes.length === 0) return true;
  try {
    return fs
      .readdirSync(`/proc/${pid}/fd`)
      .some((fd) => inodes.includes(readLink(`/proc/${pid}/fd/${fd}`)));
  } catch {
    return false; // the child has ended
  }
}

function readLink(file: string): string {
  try {
    return fs.readlinkSync(file);
  } catch {
    return ''; // a descriptor closed while we looked
  }
}

/**
 * Does the server on this port answer its health probe with 200 (within `timeoutMs`, when given)?
 */
export function isHealthy(port: number, timeoutMs?: number): Promise<boolean> {
  return new Promise((resolve) => {
    http
      .get(
        { host: '127.0.0.1', port, path: '/healthz', agent: false, timeout: timeoutMs },
        (res) => {
          res.resume();
          resolve(res.statusCode === 200);
        },
      )
      .on('timeout', function (this: http.ClientRequest) {
        this.destroy();
      })
      .on('error', () => resolve(false));
  });
}
