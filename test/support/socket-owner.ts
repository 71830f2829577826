// Which of some processes holds one end of a TCP connection on 127.0.0.1: a receiver on loopback
// learns which replica sent a request from the request's source port, while the connection is open.
// Linux only: /proc/net/tcp names each socket's inode, and /proc/<pid>/fd links to those a process
// holds (as server-process.ts does for a listening port).
import fs from 'node:fs';

/** 127.0.0.1:port as /proc/net/tcp writes it (the address in the kernel's byte order, hex port). */
const loopback = (port: number) => `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * The pid among `pids` holding the connection from `fromPort` to `toPort`, both on 127.0.0.1;
 * undefined when none does (the connection has closed, or another process holds it).
 */
export function connectionOwner(
  pids: number[],
  fromPort: number,
  toPort: number,
): number | undefined {
  const inode = fs
    .readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .find((fields) => fields[1] === loopback(fromPort) && fields[2] === loopback(toPort))?.[9];
  if (inode === undefined) return undefined;
  return pids.find((pid) => holds(pid, `socket:[${inode}]`));
}

function holds(pid: number, link: string): boolean {
  let fds: string[];
  try {
    fds = fs.readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false; // the process has ended
  }
  return fds.some((fd) => {
    try {
      return fs.readlinkSync(`/proc/${pid}/fd/${fd}`) === link;
    } catch {
      return false; // a descriptor closed while we looked
    }
  });
}
