// Ports for the servers the tests, benchmarks and the chaos run start. Two ways to get one:
// - freePort(): one the kernel just handed out, for a server that starts at once and keeps it;
// - reservePort(low, high): one of a band below the kernel's ephemeral range, held in a registry
//   every run on the machine shares, for a server that may stop and start again on it.
// The bands (PostgreSQL 5500-9999, SMTP 10000-19999, test/support/backend.ts's closedPort
// 20000-29999, SCRIPT_PORTS) are picked from at random (a fixed port in the ephemeral range may be
// some connection's own end), and a port may be held while nothing listens on it: a server stopped
// for an outage, a backend kept down. Another test of this run, or of a second clone's run beside
// it, could pick the same port meanwhile. So a port is reserved first: a file named after it,
// created only if absent (O_EXCL), in one folder every run on the machine shares, holding the
// reserving process's PID. A reservation lasts until released or until that process ends.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const REGISTRY = path.join(os.tmpdir(), 'orgnote-test-ports');

/** The band of the benches and the chaos run: the sites and mail servers they start. */
export const SCRIPT_PORTS = [30_000, 32_767] as const;

/**
 * A port that was free a moment ago on 127.0.0.1, from the kernel's ephemeral range. Another
 * process may bind it before the caller does: startBuiltServer tries another when that happens.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** Can a server listen on 127.0.0.1:port right now? */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/** A random port of [low, high] that no live process holds; now held by this one. */
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
 * Removes the reservations of processes that have ended (the test run's global setup). Only
 * there, never while reserving: two runs taking over one stale entry at once could both believe
 * they hold it.
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

/**
 * Is process `pid` running? One that ended but was not reaped yet (a zombie, for seconds in some
 * containers) has ended; where there is no /proc to say so, it counts as running.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: it exists, as another user's process.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    return !/^State:\s*Z/m.test(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return true;
  }
}
