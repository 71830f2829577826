// Bytes a process has caused to be written to storage, from Linux's /proc/<pid>/io: counted when
// the page is dirtied, so a write is seen before the kernel flushes it, and a write to a pipe or
// to tmpfs is not seen at all.
import fs from 'node:fs';

export function writeBytes(pid: number): number {
  const io = fs.readFileSync(`/proc/${pid}/io`, 'utf8');
  const bytes = /^write_bytes: (\d+)$/m.exec(io);
  if (!bytes) throw new Error(`no write_bytes in /proc/${pid}/io`);
  return Number(bytes[1]);
}
