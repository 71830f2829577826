// CPU time of a whole PostgreSQL server (the postmaster and every backend and worker it forked),
// for npm run bench:store's CPU per signup: on two vCPUs the database, the site replicas and the
// load generator share the same cores, and the split says which of them a throughput figure is made
// of.
import fs from 'node:fs';
import path from 'node:path';

/** /proc reports CPU times in clock ticks of USER_HZ, which Linux fixes at 100 per second. */
const TICKS_PER_SECOND = 100;

/**
 * proc(5) fields from the third on (after "pid (comm) "), or undefined once the process is gone.
 */
function statFields(pid: number | string): string[] | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/**
 * Seconds of CPU: the postmaster's own, its reaped children's (cutime + cstime: a pool connection
 * that closed in the window still counts), and each live child's. Undefined off Linux.
 */
export function postgresCpuSeconds(dataDir: string): number | undefined {
  const postmaster = Number(
    fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0],
  );
  const own = statFields(postmaster);
  if (!own) return undefined;
  // Fields 14-17 (utime, stime, cutime, cstime) are 11-14 here; field 4 (ppid) is 1.
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(entry);
    if (fields && Number(fields[1]) === postmaster)
      ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks / TICKS_PER_SECOND;
}
