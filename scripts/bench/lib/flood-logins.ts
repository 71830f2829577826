// The login flood of bench:login-flood: wrong passwords for the operator's account, each from the
// next address of 198.18.0.0/15 (the range RFC 2544 sets aside for benchmarks), as a TLS proxy on
// loopback forwards them. A real flood comes from other machines, so during the timed phase it is
// sent from a process of its own: the generator that times the visitors' requests does not also
// pay for sending the flood's. The control flood asks for /healthz instead: the cheapest answer
// the site has, which no throttle can undercut.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { OPERATOR } from './flood-site';
import { runOpenLoop, type Stream, type StreamResult } from './open-loop';

const POOL_SIZE = 2 ** 17;
const poolAddress = (n: number) => `198.${18 + (n >> 16)}.${(n >> 8) & 255}.${n & 255}`;

/** Wrong logins for the operator's account, the first from address number `first` of the pool. */
export function loginFlood(publicOrigin: string, perSecond: number, first = 0): Stream {
  const body = Buffer.from(
    new URLSearchParams({
      email: OPERATOR.email,
      password: 'not the password',
      code: '',
    }).toString(),
  );
  const headers = {
    'content-type': 'application/x-www-form-urlencoded',
    'content-length': body.length,
    origin: publicOrigin,
    'x-forwarded-proto': 'https',
  };
  return {
    name: 'logins',
    perSecond,
    request: (i) => ({
      method: 'POST',
      path: '/admin/login',
      headers: { ...headers, 'x-forwarded-for': poolAddress((first + i) % POOL_SIZE) },
      body,
    }),
  };
}

/** The site's cheapest answer, as often as the flood's logins. */
export const controlFlood = (perSecond: number): Stream => ({
  name: 'logins',
  perSecond,
  request: () => ({ method: 'GET', path: '/healthz', headers: {} }),
});

interface FloodRun {
  control?: boolean;
  origin: string;
  publicOrigin: string;
  perSecond: number;
  seconds: number;
  first: number;
}

/** Runs the flood in a child process; its result once every request was answered or timed out. */
export function floodFromElsewhere(run: FloodRun): Promise<StreamResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', __filename, JSON.stringify(run)], {
    cwd: path.resolve(__dirname, '../../..'),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`the flood process exited with ${code}`));
      const result = JSON.parse(out) as Omit<StreamResult, 'statuses'> & {
        statuses: [number, number][];
      };
      resolve({ ...result, statuses: new Map(result.statuses) });
    });
  });
}

if (require.main === module) {
  const run = JSON.parse(process.argv[2]) as FloodRun;
  void runOpenLoop(
    run.origin,
    [
      run.control
        ? controlFlood(run.perSecond)
        : loginFlood(run.publicOrigin, run.perSecond, run.first),
    ],
    run.seconds,
  ).then(([result]) => {
    process.stdout.write(JSON.stringify({ ...result, statuses: [...result.statuses] }));
  });
}
