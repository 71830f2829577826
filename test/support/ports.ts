// The fixtures' own port bands, below the kernel's ephemeral range (postgres.ts 5500-9999,
// smtp.ts 10000-19999, backend.ts's closedPort 20000-29999, the scripts' SCRIPT_PORTS), are picked
// from at random (a fixed port in the ephemeral range may be some connection's own end), and a test
// may hold a port while nothing listens on it: a server stopped for an outage, a backend kept
// down. Another test of this run, or of a second clone's run beside it, could pick the same port
// meanwhile. So a port is reserved first: a file named after it, created only
// if absent (O_EXCL), in one folder every run on the machine shares, holding the reserving
// process's PID. A reservation lasts until released or until that process ends.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const REGISTRY = path.join(os.tmpdir(), 'orgnote-test-ports');

/** The band of the benches and the chaos run (scripts/): the sites and mail servers they start. */
export const SCRIPT_PORTS = [30_000, 32_767] as const;

/** A random port of [low, high] that no live test process holds; now held by this one. */
export function reservePort(low: number, high: number): number {
  fs.mkdirSync(REGISTRY, { recursive: true });
  for (let attempt = 1; ; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    try {
      fs.writeFileSync(entry(port), String(process.pid), { flag: 'wx' });
      return port;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 1_000) throw err;
    }
  }
}

/** Gives a reserved port back (only one this process holds). */
export function releasePort(port: number): void {
  if (ownerOf(port) === process.pid) fs.rmSync(entry(port), { force: true });
}

/**
 * Removes the reservations of processes that have ended (global-setup.ts). Only here, never while
 * reserving: two runs taking over one stale entry at once could both believe they hold it.
 */
export function releaseAbandonedPorts(): void {
  if (!fs.existsSync(REGISTRY)) return;
  for (const name of fs.readdirSync(REGISTRY)) {
    const owner = ownerOf(Number(name));
    if (owner !== undefined && !isAlive(owner)) fs.rmSync(entry(Number(name)), { force: true });
  }
}

function entry(port: number): string {
  return path.join(REGISTRY, String(port));
}

function ownerOf(port: number): number | undefined {
  try {
    return Number(fs.readFileSync(entry(port), 'utf8')) || undefined;
  } catch {
    return undefined;
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, as another user's process.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
