// Operator CLI for the embedded waitlist: `npm run waitlist -- <command>` (uses DATA_DIR).
// In the Docker image: `node dist/server/waitlist.js <command>`. The commands are the rows of
// commands.ts; this file parses argv, finds the row, and turns errors into exit codes. main reads
// only the environment and the streams it is given, so the tests run this entry in-process.
import '../supported-node';
import '../compile-cache';
import type { Readable, Writable } from 'node:stream';
import { ReadStream } from 'node:tty';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config';
import type { Store } from '../store';
import { openStore, SchemaVersionError, type SchemaPolicy } from '../store/open';
import { currentBuild } from '../version';
import {
  commandFor,
  helpText,
  UsageError,
  type CliContext,
  type CliIo,
  type OptionRow,
  type Status,
  type StoreUse,
} from './command-table';
import { COMMANDS, OPTIONS, type Options } from './commands';

export { CommandError, UsageError, type CliIo } from './command-table';

export const HELP = helpText(
  COMMANDS,
  OPTIONS,
  'Usage: npm run waitlist -- <command> [options]',
  `The store is PostgreSQL at DATABASE_URL when it is set, otherwise DATA_DIR/waitlist.db (DATA_DIR
defaults to ./data). invite needs SITE_URL (the
link in the mail) and sends through SMTP_URL; without SMTP_URL each mail is written to
DATA_DIR/mail/<id>.eml. Mail the server cannot take now is retried by the running site.
`,
);

const isHelp = (arg: string) => arg === '-h' || arg === '--help' || arg === 'help';

/** The row argv names, with its arguments and options; undefined when argv asks for help. */
function parseCommand(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: OPTIONS,
  });
  const options: Options = values;
  if (options.help || positionals.length === 0 || isHelp(positionals[0])) return undefined;
  const rows: Record<string, OptionRow> = OPTIONS;
  for (const [name, value] of Object.entries(options))
    for (const text of [value].flat()) if (typeof text === 'string') rows[name].check?.(text);
  return { ...commandFor(COMMANDS, positionals), options };
}

export async function runCommand(context: CliContext, argv: string[], io: CliIo): Promise<Status> {
  const command = parseCommand(argv);
  if (!command) {
    await io.out(HELP);
    return 0;
  }
  return command.row.run(context, command.args, command.options, io);
}

const SCHEMA_POLICY: Record<Exclude<StoreUse, 'none'>, SchemaPolicy> = {
  reads: 'current',
  writes: 'migrate',
  copies: 'known',
};

/** What to do about a store whose schema the command cannot use as it is. */
function schemaAdvice({ found, release }: SchemaVersionError): string {
  if (found === 0)
    return 'Check DATA_DIR (or DATABASE_URL): the site creates the store when it starts.';
  if (found > release) return 'Run the command with the release that migrated it.';
  return (
    'Commands that only read never migrate: back up, then start the site or run ' +
    '`waitlist migrate`.'
  );
}

/** What a run reads and writes: the process's own streams, or a test's in-process run's. */
export interface CliStreams {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
}

/** Exit code: 0 ok, 1 failure (unknown email, bad config, mail refused), 2 usage error. */
export async function main(
  argv: string[],
  env: NodeJS.ProcessEnv,
  streams: CliStreams,
): Promise<number> {
  let store: Store | undefined;
  // Before the settings: the version answers whatever they are, and needs no store.
  if (argv.includes('--version')) {
    const { version, commit } = currentBuild();
    streams.stdout.write(`orgnote-site ${version} (commit ${commit})\n`);
    return 0;
  }
  try {
    const config = loadConfig(env);
    // Help needs no store: it works while the database is down.
    if (argv.length === 0 || argv.some(isHelp)) {
      streams.stdout.write(HELP);
      return 0;
    }
    const command = parseCommand(argv);
    if (!command) {
      streams.stdout.write(HELP);
      return 0;
    }
    const { row, args, options } = command;
    const io: CliIo = {
      out: (text) => writeOut(streams.stdout, text),
      readSecret: (prompt) => readSecret(streams, prompt),
      stdin: streams.stdin,
    };
    if (row.store === 'none') return await row.run({ config }, args, options, io);
    // The CLI does not wait for a database that is down: it says so at once.
    store = await openStore(config, undefined, {
      waitSeconds: 0,
      schema: SCHEMA_POLICY[row.store ?? 'reads'],
    });
    return await row.run({ store, config }, args, options, io);
  } catch (err) {
    const usage =
      err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    const advice = err instanceof SchemaVersionError ? `\n${schemaAdvice(err)}` : '';
    const help = usage ? 'Run with --help for usage.\n' : '';
    streams.stderr.write(`waitlist: ${(err as Error).message}${advice}\n${help}`);
    return usage ? 2 : 1;
  } finally {
    await store?.close();
  }
}

/** Writes to stdout, resolving once the pipe can take more (a reader slower than the export). */
function writeOut(stdout: Writable, text: string): Promise<void> | void {
  if (stdout.write(text)) return;
  return new Promise((resolve) => stdout.once('drain', () => resolve()));
}

/**
 * A password: the first line of stdin when it is a pipe or a file; at a terminal, typed after
 * `prompt` (on stderr, so stdout stays clean) with nothing echoed.
 */
async function readSecret({ stdin, stderr }: CliStreams, prompt: string): Promise<string> {
  if (!(stdin instanceof ReadStream && stdin.isTTY)) {
    let text = '';
    for await (const chunk of stdin) text += String(chunk);
    return text.split(/\r?\n/)[0];
  }
  // Echo off before the prompt shows: keys typed as soon as it appears are never echoed.
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  stderr.write(prompt);
  return new Promise((resolve) => {
    let typed = '';
    const done = () => {
      stdin.setRawMode(false);
      stdin.off('data', onData);
      stdin.pause();
      stderr.write('\n');
    };
    const onData = (keys: string) => {
      for (const key of keys) {
        if (key === '\r' || key === '\n' || key === '\u0004') {
          done();
          resolve(typed);
          return;
        }
        if (key === '\u0003') {
          done();
          process.exit(130); // Ctrl-C, as a shell reports it
        }
        typed = key === '\u007f' ? typed.slice(0, -1) : typed + key;
      }
    };
    stdin.on('data', onData);
    stdin.resume();
  });
}

if (require.main === module) {
  void main(process.argv.slice(2), process.env, process).then((code) => {
    process.exitCode = code;
  });
}
