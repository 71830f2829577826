// The site npm run bench:login-flood floods: the build on SQLite in a fresh DATA_DIR, behind a
// stand-in TLS proxy on loopback, its console account added with the CLI, its metrics on a
// listener of their own, and its log in a file of the DATA_DIR.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { releasePort, reservePort, SCRIPT_PORTS } from '../../lib/launch/ports';
import { startBuiltServer, type BuiltServer } from '../../lib/launch/server';
import { ROOT } from '../../lib/root';
import { writeBytes } from './disk-writes';

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
  const publicOrigin = `https://127.0.0.1:${port}`;
  const env = {
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
  let site: BuiltServer | undefined;
  const stop = async () => {
    await site?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    releasePort(port);
    releasePort(metricsPort);
  };
  try {
    site = await startBuiltServer({ env, logFile });
    // As the README tells operators: the CLI, the password on stdin.
    const added = spawnSync(
      process.execPath,
      ['dist/server/waitlist.js', 'admin', 'add', OPERATOR.email],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH, ...env },
        input: OPERATOR.password,
        encoding: 'utf8',
        timeout: 30_000,
      },
    );
    if (added.status !== 0) throw new Error(`waitlist admin add failed: ${added.stderr}`);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    origin: site.url,
    publicOrigin,
    pid: site.child.pid!,
    logFile,
    counter: (name) => counter(`http://127.0.0.1:${metricsPort}/metrics`, name),
    stop,
  };
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
