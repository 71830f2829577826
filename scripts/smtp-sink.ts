// The SMTP sink (scripts/lib/launch/smtp.ts) in a process of its own, for the mail benchmarks: in
// the site's process, taking in and counting 10 000 messages would compete with the sending for
// the same event loop and CPU, and the figures would be the sum of both.
//   node --import tsx scripts/smtp-sink.ts [--each] [port] [user:pass]
// Prints `listening <port>` once it accepts mail. A line on stdin or SIGUSR2 prints the counts so
// far as one JSON line ({received, uniqueMessageIds, duplicates, recipients}, see SmtpStats) and
// goes on; SIGTERM or SIGINT prints them and exits.
// --each also prints `message {"to":[…],"messageId":"<…>","at":<ms since the epoch>}` for every
// message accepted, in the order accepted, for a benchmark that times each delivery (npm run
// bench:confirm-mail). `at` is when the sink recorded it, just before its 250 was answered.
// Start it with `node --import tsx`, not the tsx command: that one runs the script in a child
// process and passes on SIGINT and SIGTERM only, so SIGUSR2 ends the wrapper and leaves the sink
// running, orphaned (and its pid is not the one whose CPU a benchmark would read).
import fs from 'node:fs';
import readline from 'node:readline';
import { parseArgs } from 'node:util';
import { startSmtpServer } from './lib/launch/smtp';

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    options: { each: { type: 'boolean', default: false } },
    allowPositionals: true,
  });
  const [portArg, login] = positionals;
  const colon = login?.indexOf(':') ?? -1;
  const smtp = await startSmtpServer({
    // Without a port it picks one below the ephemeral range; `0` asks the kernel.
    port: portArg === undefined ? undefined : Number(portArg),
    auth:
      login && colon > 0
        ? { user: login.slice(0, colon), pass: login.slice(colon + 1) }
        : undefined,
    // Only the envelope and Message-ID: parsing every message would make the sink the bottleneck.
    parse: false,
    // Printed as recorded, so every message counted has had its line first.
    onMessage: values.each
      ? ({ envelope, messageId }) => {
          const line = JSON.stringify({ to: envelope.to, messageId, at: Date.now() });
          process.stdout.write(`message ${line}\n`);
        }
      : undefined,
  });
  const report = () => process.stdout.write(`${JSON.stringify(smtp.stats())}\n`);
  let exiting = false;
  const exit = () => {
    if (exiting) return;
    exiting = true;
    report();
    void smtp.close().then(() => process.exit(0));
  };

  process.on('SIGUSR2', report);
  process.once('SIGTERM', exit);
  process.once('SIGINT', exit);
  // With stdin ignored (spawn's 'ignore' is /dev/null) or a terminal, only lines count. From a
  // pipe (spawn's 'pipe' is a socket pair), its end also means the process that started the sink
  // is gone: stop rather than linger.
  const input = readline.createInterface({ input: process.stdin });
  input.on('line', report);
  const stdin = fs.fstatSync(0);
  if (stdin.isFIFO() || stdin.isSocket()) input.once('close', exit);
  process.stdout.write(`listening ${smtp.port}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`smtp-sink: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
