// The site's resident memory once the bench is over: what it keeps, after a full collection
// (gc-on-signal.cjs, preloaded with --expose-gc), and the peak it reached, from Linux's
// /proc/<pid>/status.
import fs from 'node:fs';
import path from 'node:path';

/** Node's options that make the site collect on SIGUSR2 (for startBuiltServer's nodeArgs). */
export const GC_ON_SIGNAL = ['--expose-gc', '--require', path.join(__dirname, 'gc-on-signal.cjs')];

export interface Memory {
  /** VmRSS after the collection, MiB. */
  rssMiB: number;
  /** VmHWM, the peak resident size, MiB. */
  peakMiB: number;
}

const GC_DEADLINE_MS = 10_000;

/**
 * Asks the site (started with GC_ON_SIGNAL, its output to `logFile`) to collect, waits for its
 * "gc done" and reads its memory.
 */
export async function memoryAfterCollection(pid: number, logFile: string): Promise<Memory> {
  const logged = fs.statSync(logFile).size;
  process.kill(pid, 'SIGUSR2');
  const deadline = Date.now() + GC_DEADLINE_MS;
  while (!readFrom(logFile, logged).includes('gc done\n')) {
    if (Date.now() > deadline) throw new Error(`the site did not collect within 10 s (${logFile})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const mib = (field: string) =>
    Math.round(Number(new RegExp(`^${field}:\\s*(\\d+) kB`, 'm').exec(status)?.[1]) / 102.4) / 10;
  return { rssMiB: mib('VmRSS'), peakMiB: mib('VmHWM') };
}

function readFrom(file: string, offset: number): string {
  const fd = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    const buffer = Buffer.alloc(Math.max(0, size - offset));
    fs.readSync(fd, buffer, 0, buffer.length, offset);
    return buffer.toString();
  } finally {
    fs.closeSync(fd);
  }
}
