// Starts the built production server (dist/server/index.js) as a child process, the way
// `npm start` and the Docker image run it, and waits until it listens.
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { freePort } from '../../scripts/site-process';
import { tempDataDir } from './config';

export interface ServerProcess {
  child: ChildProcess;
  port: number;
  url: string;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const ENTRY = path.resolve(__dirname, '../../dist/server/index.js');

export async function startServerProcess(env: Record<string, string> = {}): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [ENTRY], {
    env: { PATH: process.env.PATH, NODE_ENV: 'production', HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'info', DATA_DIR: tempDataDir(), SIGNUP_RATE_LIMIT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const collect = (chunk: Buffer) => void (output += chunk.toString());
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  let exitedEarly = false;
  void exited.then(() => (exitedEarly = true));
  // Ready means /healthz answers, whatever the log level prints.
  const deadline = Date.now() + 10_000;
  while (!(await isHealthy(port))) {
    if (exitedEarly) throw new Error(`server exited before listening:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not start in time:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, port, url: `http://127.0.0.1:${port}`, output: () => output, exited };
}

/** Does the server on this port answer its health probe with 200? */
export function isHealthy(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    http
      .get({ host: '127.0.0.1', port, path: '/healthz', agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      })
      .on('error', () => resolve(false));
  });
}
