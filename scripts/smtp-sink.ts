// The test SMTP server (test/support/smtp.ts) in a process of its own, for the mail benchmarks: in
// the site's process, taking in and counting 10 000 messages would compete with the sending for
// the same event loop and CPU, and the figures would be the sum of both.
//   node --import tsx scripts/smtp-sink.ts [--each] [port] [user:pass]
// Prints `listening <port>` once it accepts mail. A line on stdin or SIGUSR2 prints the counts so
// far as one JSON line ({received, uniqueMessageIds, duplicates, recipients}, see SmtpStats) and
// goes on; SIGTERM or SIGINT prints them and exits.
// --each also prints `message {"to":[…],"messageId":"<…>","at":<ms since the epoch>}` for every
// message accepted, in the order accepted, for a benchmark that times each delivery (npm run
// bench:confirm-mail). `at` is when the sink saw the message among those received, looked for
// every EACH_POLL_MS: at most that much after its 250 was answered.
// Start it with `node --import tsx`, not the tsx command: that one runs the script in a child
// process and passes on SIGINT and SIGTERM only, so SIGUSR2 ends the wrapper and leaves the sink
// running, orphaned (and its pid is not the one whose CPU a benchmark would read).
import fs from 'node:fs';
import readline from 'node:readline';
import { parseArgs } from 'node:util';
import { startSmtpServer } from '../test/support/smtp';

/**
 * How often --each looks for new messages. test/support/smtp.ts offers no callback per message,
 * only the list of those received; 5 ms is nothing beside the seconds a delivery target counts in.
 */
const EACH_POLL_MS = 5;

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
  });
  let printed = 0;
  const printEach = () => {
    const at = Date.now();
    for (; printed < smtp.received.length; printed++) {
      const { envelope, messageId } = smtp.received[printed];
      process.stdout.write(`message ${JSON.stringify({ to: envelope.to, messageId, at })}\n`);
    }
  };
  const watch = values.each ? setInterval(printEach, EACH_POLL_MS) : undefined;
  const report = () => {
    if (watch) printEach(); // every message counted has had its line first
    process.stdout.write(`${JSON.stringify(smtp.stats())}\n`);
  };
  let exiting = false;
  const exit = () => {
    if (exiting) return;
    exiting = true;
    clearInterval(watch);
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
