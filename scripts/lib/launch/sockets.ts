// Which process holds a TCP socket on 127.0.0.1, from Linux's /proc: /proc/net/tcp names each
// socket's inode, and /proc/<pid>/fd links to those a process holds. The launcher asks whether a
// port answers from the server it started (not from another that took the port first); a receiver
// on loopback asks which replica sent a request, from the request's source port.
import fs from 'node:fs';

/** 127.0.0.1:port as /proc/net/tcp writes it (the address in the kernel's byte order, hex port). */
const loopback = (port: number) => `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;

/** /proc/net/tcp's rows split into fields; undefined where there is none (not Linux). */
function tcpTable(): string[][] | undefined {
  try {
    return fs
      .readFileSync('/proc/net/tcp', 'utf8')
      .split('\n')
      .map((line) => line.trim().split(/\s+/));
  } catch {
    return undefined;
  }
}

/**
 * Is `port` on 127.0.0.1 a listening socket of process `pid`? Where there is no /proc to tell:
 * assumed.
 */
export function listensOn(pid: number, port: number): boolean {
  const table = tcpTable();
  if (!table) return true;
  // 0A is LISTEN.
  const inodes = table
    .filter((fields) => fields[1] === loopback(port) && fields[3] === '0A')
    .map((fields) => fields[9]);
  // Something answered on the port, so a table without it is one this parser misreads.
  if (inodes.length === 0) return true;
  return inodes.some((inode) => holds(pid, inode));
}

/**
 * The pid among `pids` holding the connection from `fromPort` to `toPort`, both on 127.0.0.1;
 * undefined when none does (the connection has closed, or another process holds it).
 */
export function connectionOwner(
  pids: number[],
  fromPort: number,
  toPort: number,
): number | undefined {
  const inode = tcpTable()?.find(
    (fields) => fields[1] === loopback(fromPort) && fields[2] === loopback(toPort),
  )?.[9];
  if (inode === undefined) return undefined;
  return pids.find((pid) => holds(pid, inode));
}

/** Does process `pid` hold the socket of this inode? */
function holds(pid: number, inode: string): boolean {
  const link = `socket:[${inode}]`;
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
