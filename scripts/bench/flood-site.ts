// The site npm run bench:login-flood floods: the build on SQLite in a fresh DATA_DIR, behind a
// stand-in TLS proxy on loopback, its console account added with the CLI, its metrics on a
// listener of their own, and its log in a file of the DATA_DIR.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { releasePort, reservePort, SCRIPT_PORTS } from '../../test/support/ports';
import { ROOT } from '../site-process';
import { writeBytes } from './disk-writes';

/** This bench's own port band, apart from the test suite's and the other scripts'. */

export const OPERATOR = { email: 'ops@example.org', password: 'correct horse battery staple' };

export interface FloodSite {
  /** Where the load goes (plain http on loopback). */
  origin: string;
  /** SITE_URL: https, as a TLS proxy in front would serve it. */
  publicOrigin: string;
  pid: number;
  logFile: string;
  /** A counter's value summed over its labels from /metrics, or undefined when it is absent. */
  counter(name: string): Promise<number | undefined>;
  stop(): Promise<void>;
}

export async function startFloodSite(): Promise<FloodSite> {
  const port = reservePort(...SCRIPT_PORTS);
  const metricsPort = reservePort(...SCRIPT_PORTS);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'orgnote-login-flood-'));
  const origin = `http://127.0.0.1:${port}`;
  const publicOrigin = `https://127.0.0.1:${port}`;
  const env = {
    ...process.env,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    METRICS_PORT: String(metricsPort),
    DATA_DIR: dataDir,
    DATABASE_URL: '',
    // A flood comes from other machines, and the console answers those only over https: here
    // through a proxy on loopback that TRUST_PROXY believes (X-Forwarded-For, -Proto).
    SITE_URL: publicOrigin,
    TRUST_PROXY: 'loopback',
    // One load generator stands in for many visitors: no per-client limit on the forms.
    SIGNUP_RATE_LIMIT: '0',
    LOG_LEVEL: 'warn',
  };
  const logFile = path.join(dataDir, 'site.log');
  // A file, as a log collector would drain it: a pipe read by the busy load generator could
  // fill up and stall the site's writes.
  const log = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, ['dist/server/index.js'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', log, 'inherit'],
  });
  fs.closeSync(log);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
    releasePort(port);
    releasePort(metricsPort);
  };
  try {
    await waitForHealth(origin, child);
    // As the README tells operators: the CLI, the password on stdin.
    const added = spawnSync(
      process.execPath,
      ['dist/server/waitlist.js', 'admin', 'add', OPERATOR.email],
      { cwd: ROOT, env, input: OPERATOR.password, encoding: 'utf8', timeout: 30_000 },
    );
    if (added.status !== 0) throw new Error(`waitlist admin add failed: ${added.stderr}`);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    origin,
    publicOrigin,
    pid: child.pid!,
    logFile,
    counter: (name) => counter(`http://127.0.0.1:${metricsPort}/metrics`, name),
    stop,
  };
}

async function waitForHealth(origin: string, child: ChildProcess): Promise<void> {
  for (let attempt = 0; attempt < 150 && child.exitCode === null; attempt++) {
    const up = await fetch(`${origin}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(
    child.exitCode === null ? 'the site did not start' : `the site exited with ${child.exitCode}`,
  );
}

async function counter(url: string, name: string): Promise<number | undefined> {
  const text = await (await fetch(url)).text();
  const values = text
    .split('\n')
    .filter((line) => line.startsWith(`${name} `) || line.startsWith(`${name}{`))
    .map((line) => Number(line.slice(line.lastIndexOf(' ') + 1)));
  return values.length ? values.reduce((a, b) => a + b, 0) : undefined;
}

/**
 * Waits until the site has written nothing for a second (at most 30 s): requests whose client
 * gave up may still be running, and their writes must not count in the next step.
 */
export async function settle(pid: number): Promise<boolean> {
  let last = writeBytes(pid);
  let stillFor = 0;
  for (let waited = 0; waited < 30_000; waited += 250) {
    await new Promise((r) => setTimeout(r, 250));
    const now = writeBytes(pid);
    stillFor = now === last ? stillFor + 250 : 0;
    last = now;
    if (stillFor >= 1_000) return true;
  }
  return false;
}
