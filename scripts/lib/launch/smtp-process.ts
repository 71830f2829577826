// The SMTP sink in a process of its own (scripts/smtp-sink.ts), for the benchmarks: a real SMTP
// server on 127.0.0.1 whose receiving does not compete with the sender for an event loop, read
// line by line: its port, the counts it prints when asked, and with `each` a line per message.
import { spawn, type ChildProcess } from 'node:child_process';
import readline from 'node:readline';
import { ROOT } from '../root';
import type { SmtpStats } from './smtp';

/** A message as the sink's --each reports it. */
export interface SinkMessage {
  to: string[];
  messageId: string | undefined;
  /** When the sink had it, ms since the epoch. */
  at: number;
}

export interface SmtpSink {
  child: ChildProcess;
  port: number;
  /** smtp://127.0.0.1:<port> */
  url: string;
  /** With `each`: every message received so far, in order. */
  messages: SinkMessage[];
  /** The counts so far. */
  stats(): Promise<SmtpStats>;
  /** Ends the sink; resolves with its final counts. Harmless when it has already stopped. */
  stop(): Promise<SmtpStats | undefined>;
}

export async function startSmtpSink({ each = false } = {}): Promise<SmtpSink> {
  // stdin a pipe: if the bench dies, the pipe ends and the sink stops with it (smtp-sink.ts).
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'scripts/smtp-sink.ts', ...(each ? ['--each'] : []), '0'],
    {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const messages: SinkMessage[] = [];
  /** Callers waiting for the next counts line, in the order they asked. */
  const waiting: { resolve: (stats: SmtpStats) => void; reject: (err: Error) => void }[] = [];
  let listening: ((port: number) => void) | undefined;
  let exited: Error | undefined;
  const gone = new Promise<Error>((resolve) =>
    child.once('exit', (code) => {
      const err = new Error(`smtp-sink exited with ${code}`);
      exited = err;
      for (const waiter of waiting.splice(0)) waiter.reject(err);
      resolve(err);
    }),
  );
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    const port = /^listening (\d+)$/.exec(line);
    if (port) return listening?.(Number(port[1]));
    if (line.startsWith('message '))
      return void messages.push(JSON.parse(line.slice('message '.length)) as SinkMessage);
    waiting.shift()?.resolve(JSON.parse(line) as SmtpStats);
  });
  const port = await new Promise<number>((resolve, reject) => {
    listening = resolve;
    void gone.then(reject);
  });
  const nextStats = () => {
    if (exited) return Promise.reject(exited);
    return new Promise<SmtpStats>((resolve, reject) => waiting.push({ resolve, reject }));
  };
  return {
    child,
    port,
    url: `smtp://127.0.0.1:${port}`,
    messages,
    stats() {
      const answer = nextStats();
      child.stdin.write('\n');
      return answer;
    },
    async stop() {
      if (exited) return undefined;
      const last = nextStats().catch(() => undefined);
      child.kill('SIGTERM');
      await gone;
      return last;
    },
  };
}
