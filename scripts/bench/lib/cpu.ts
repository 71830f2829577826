// CPU time a process has used (all its threads, user + system), from Linux's /proc/<pid>/stat.
// The bench divides it by the requests served, so the site's own cost per proxied signup can be
// set against the backend's in the same window: the machine's speed drifts between windows and
// moves both alike, so their ratio says what the proxy itself costs better than req/s can.
import fs from 'node:fs';

/** /proc reports utime and stime in clock ticks of USER_HZ, which Linux fixes at 100 per second. */
const TICKS_PER_SECOND = 100;

/**
 * Seconds of CPU used so far, or undefined where /proc is not available (not Linux, process gone).
 */
export function cpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    // The command name in parentheses may contain spaces; the fields after it are fixed.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // proc(5) fields 14 and 15 (utime, stime) are 11 and 12 here: the list starts at field 3.
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/**
 * Busy time of all cores from /proc/stat's first line: user, nice, system, and steal (the
 * hypervisor serving other guests). Not irq and softirq: loopback traffic, ours mostly, is
 * counted there rather than in any process. Less the CPU of the processes a bench watches, it
 * says how much other programs took from the machine meanwhile ("other cores").
 */
export function machineBusySeconds(): number | undefined {
  try {
    const [user, nice, system, , , , , steal] = fs
      .readFileSync('/proc/stat', 'utf8')
      .split('\n')[0]
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    return (user + nice + system + steal) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}
