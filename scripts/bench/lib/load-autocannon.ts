// The bench's load generator where there is no wrk (load.ts): autocannon, in this process of its
// own, with the options of the file named by argv[2]. Prints the line wrk's script would.
import fs from 'node:fs';
import autocannon from 'autocannon';
import type { LoadFile, LoadLine } from './load';

async function main(): Promise<void> {
  const file = JSON.parse(fs.readFileSync(process.argv[2], 'utf8')) as LoadFile;
  const body = file.bodyFile ? fs.readFileSync(file.bodyFile) : undefined;
  const result = await autocannon({
    url: file.url,
    method: file.method,
    headers: file.headers,
    body,
    connections: file.connections,
    duration: file.seconds,
    // Each connection asks for the paths in turn, as wrk's script hands them out.
    requests: file.paths?.map((path) => ({ path })),
  });
  const line: LoadLine = {
    requests: result.requests.total,
    durationUs: Math.round(result.duration * 1e6),
    p50Us: Math.round(result.latency.p50 * 1000),
    p99Us: Math.round(result.latency.p99 * 1000),
    errors: {
      connect: 0,
      // autocannon's errors include its timeouts.
      read: result.errors - result.timeouts,
      write: 0,
      timeout: result.timeouts,
      status: result.non2xx,
    },
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

void main();
