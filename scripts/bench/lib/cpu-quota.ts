// A CPU quota on a whole process tree (cgroup v1's cpu controller), for bench:pow: unlike
// Chromium's own throttle, it slows every thread of every process in the group, a page's
// workers and the threads WebCrypto answers on included. Needs root and a writable
// /sys/fs/cgroup/cpu.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const CPU_CGROUP = '/sys/fs/cgroup/cpu';
/**
 * A short period spreads the quota finely: at the default 100 ms, a 25 % group would run 25 ms
 * and then stand still 75 ms, which shows in timings of a few hundred ms.
 */
const PERIOD_US = 10_000;

export interface CpuQuotaGroup {
  /** A program that joins the group, then runs `program` with its arguments (children follow). */
  launcher: string;
  /** Resolves once the group's processes are near idle (a browser's start-up work is done). */
  settled(): Promise<void>;
  /** Takes the group down; processes still in it go back to the parent group first. */
  remove(): Promise<void>;
}

/** Linux's USER_HZ: /proc/<pid>/stat counts CPU time in 1/100 s. */
const TICKS_PER_SECOND = 100;

/** User and system CPU time of each of these processes, in ticks; one gone is left out. */
function cpuTicks(pids: string[]): Map<string, number> {
  const ticks = new Map<string, number>();
  for (const pid of pids) {
    try {
      // Fields 14 and 15 (utime, stime), counted after the command's closing parenthesis.
      const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      ticks.set(pid, Number(fields[11]) + Number(fields[12]));
    } catch {
      // exited since the list was read
    }
  }
  return ticks;
}

/** CPU ticks spent between two samples; a process started meanwhile counts all of its own. */
function ticksSpent(before: Map<string, number>, now: Map<string, number>): number {
  let spent = 0;
  for (const [pid, ticks] of now) spent += ticks - (before.get(pid) ?? 0);
  return spent;
}

/** Why the quota cannot be set here, or undefined when it can. */
export function cpuQuotaUnavailable(): string | undefined {
  try {
    fs.accessSync(path.join(CPU_CGROUP, 'cgroup.procs'), fs.constants.W_OK);
    return undefined;
  } catch {
    return `${CPU_CGROUP} is not a writable cgroup v1 cpu controller (run as root)`;
  }
}

/**
 * A group allowed `percent` % of one core (no limit when undefined: a baseline that can still
 * wait for its processes to settle), and a launcher that starts `program` in it.
 */
export function createCpuQuotaGroup(
  name: string,
  percent: number | undefined,
  program: string,
): CpuQuotaGroup {
  const unavailable = cpuQuotaUnavailable();
  if (unavailable) throw new Error(`No CPU quota: ${unavailable}`);
  const group = path.join(CPU_CGROUP, name);
  fs.mkdirSync(group);
  const launcherDir = fs.mkdtempSync(path.join(os.tmpdir(), 'orgnote-cpu-quota-'));
  const launcher = path.join(launcherDir, 'launch');
  let removed = false;
  // Synchronous, so that it also runs from an 'exit' handler when the bench fails.
  const removeNow = () => {
    if (removed) return;
    const procs = path.join(group, 'cgroup.procs');
    if (fs.existsSync(procs))
      for (const pid of fs.readFileSync(procs, 'utf8').split('\n').filter(Boolean))
        fs.writeFileSync(path.join(CPU_CGROUP, 'cgroup.procs'), pid);
    fs.rmSync(launcherDir, { recursive: true, force: true });
    fs.rmdirSync(group);
    removed = true;
  };
  const removeOnExit = () => {
    try {
      removeNow();
    } catch {
      // a last try on the way out; remove() reports its own failures
    }
  };
  process.once('exit', removeOnExit);
  // Stopped with ^C or a kill: the group goes too (a browser still in it is moved out first, and
  // exits as its pipe closes).
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      removeOnExit();
      process.exit(1);
    });
  try {
    fs.writeFileSync(path.join(group, 'cpu.cfs_period_us'), String(PERIOD_US));
    fs.writeFileSync(
      path.join(group, 'cpu.cfs_quota_us'),
      percent === undefined ? '-1' : String(Math.round((PERIOD_US * percent) / 100)),
    );
    // The shell moves itself into the group, then becomes the program: every process the
    // program starts later is born in the group.
    fs.writeFileSync(
      launcher,
      `#!/bin/sh\necho $$ > '${path.join(group, 'cgroup.procs')}' || exit 1\n` +
        `exec '${program}' "$@"\n`,
      { mode: 0o755 },
    );
  } catch (err) {
    removeNow();
    throw err;
  }
  const pids = () =>
    fs.readFileSync(path.join(group, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean);
  return {
    launcher,
    async settled() {
      // Under 2 % of a core for a second, or 60 s at most: on a busy machine it may never be.
      let before = cpuTicks(pids());
      for (let i = 0; i < 60; i++) {
        await sleep(1_000);
        const now = cpuTicks(pids());
        if (ticksSpent(before, now) <= TICKS_PER_SECOND / 50) return;
        before = now;
      }
    },
    async remove() {
      // A closed browser's last processes take a moment to exit.
      const procs = path.join(group, 'cgroup.procs');
      for (let i = 0; i < 50 && fs.readFileSync(procs, 'utf8').trim(); i++) await sleep(100);
      removeNow();
    },
  };
}
