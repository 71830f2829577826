// Live memory of a child Node process, read through its inspector (`--inspect=127.0.0.1:PORT`):
// a full garbage collection first, then the heap in use and the resident set. RSS alone says
// little about a leak on Node 24, whose V8 lets garbage pile up far longer than Node 20 did
// before collecting it (167 MB of RSS growth in a 30 s load that a 96 MB heap cap also survives).
import fs from 'node:fs';

export interface LiveMemory {
  /** V8 heap in use after a full collection, in bytes. */
  heapUsed: number;
  /** Resident set after that collection, in bytes (Linux /proc). */
  rss: number;
}

interface InspectorTarget {
  webSocketDebuggerUrl: string;
}

/** Collects garbage in the process listening for the inspector on `port`, then measures it. */
export async function liveMemory(port: number, pid: number): Promise<LiveMemory> {
  const targets = (await (
    await fetch(`http://127.0.0.1:${port}/json/list`)
  ).json()) as InspectorTarget[];
  const socket = new WebSocket(targets[0].webSocketDebuggerUrl);
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => resolve(), { once: true });
    socket.addEventListener('error', () => reject(new Error('cannot reach the inspector')), {
      once: true,
    });
  });
  let nextId = 1;
  const call = (method: string) =>
    new Promise<Record<string, number>>((resolve) => {
      const id = nextId++;
      const onMessage = (event: MessageEvent) => {
        const message = JSON.parse(String(event.data)) as {
          id?: number;
          result?: Record<string, number>;
        };
        if (message.id !== id) return;
        socket.removeEventListener('message', onMessage);
        resolve(message.result ?? {});
      };
      socket.addEventListener('message', onMessage);
      socket.send(JSON.stringify({ id, method }));
    });
  try {
    await call('HeapProfiler.collectGarbage');
    const { usedSize } = await call('Runtime.getHeapUsage');
    return { heapUsed: usedSize, rss: rssOf(pid) };
  } finally {
    socket.close();
  }
}

/** Resident memory of a process in bytes (Linux /proc). */
export function rssOf(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}
