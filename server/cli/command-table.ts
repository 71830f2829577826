// The shape of the CLI: a table of command rows (name, arguments, one help line, what it runs) and
// a table of options, like the subcommand tables of git or cargo. The help text and every usage
// error about which command or how many arguments come from these rows, never from a second copy.
import type { Readable } from 'node:stream';
import type { Config } from '../config';
import type { Store } from '../store';

export class UsageError extends Error {}

/** A refusal that is not a usage mistake (exit code 1), with a message that says what to do. */
export class CommandError extends Error {}

export interface CliIo {
  /**
   * Resolves when the text may be followed by more (a pipe's backpressure: export never piles up).
   */
  out: (text: string) => void | Promise<void>;
  /** A secret (a password): the first line of stdin, or typed at a prompt without echo. */
  readSecret?: (prompt: string) => Promise<string>;
  /** What a command reads from stdin when it is given `-` for a file (import). */
  stdin?: Readable;
}

export interface CliContext {
  store: Store;
  config: Config;
}

/** Exit code of a command that ran: 0, or 1 when some of its work could not be done. */
export type Status = 0 | 1;

/** An option as parseArgs reads it, with what help shows for it. */
export interface OptionRow {
  type: 'string' | 'boolean';
  /** Given more than once, each value kept (parseArgs hands over an array). */
  multiple?: true;
  short?: string;
  /** The placeholder of its value in help ('DATE'). */
  value?: string;
  help: string;
  /**
   * Throws a UsageError for a value it cannot take (each value, for `multiple`): checked before
   * any store is opened.
   */
  check?: (value: string) => void;
}

/**
 * What a command does with the store, which says how the CLI opens it. 'reads' (the default): as
 * it is, at this release's schema version only; a command that reads never migrates. 'writes':
 * migrated to this release's version first, as the site does at start-up. 'copies' (backup): as
 * it is, at this release's version or an older one. 'none': not opened at all.
 */
export type StoreUse = 'reads' | 'writes' | 'copies' | 'none';

export type CommandRow<Options> = RowShape &
  (
    | {
        store?: Exclude<StoreUse, 'none'>;
        run(context: CliContext, args: string[], options: Options, io: CliIo): Promise<Status>;
      }
    | {
        store: 'none';
        run(
          context: Pick<CliContext, 'config'>,
          args: string[],
          options: Options,
          io: CliIo,
        ): Promise<Status>;
      }
  );

interface RowShape {
  /** One word, or two for a subcommand ('mail retry'). */
  name: string;
  /** The arguments as help shows them ('<email>...'). */
  args?: string;
  help: string;
  /** Further forms of the same command, each with its own help line (invite --next N). */
  also?: { args: string; help: string }[];
  /** What its first argument is: without one it is a usage error, "<name> needs <needs>". */
  needs?: string;
  /** More than one argument is a usage error too. */
  onlyOne?: boolean;
}

/** "<name> needs <what>": the usage error of a row whose argument is missing or malformed. */
export function needsError(row: Pick<RowShape, 'name' | 'needs'>): UsageError {
  return new UsageError(`${row.name} needs ${row.needs}`);
}

export function helpText(
  rows: CommandRow<unknown>[],
  options: Record<string, OptionRow>,
  head: string,
  foot: string,
): string {
  const commands = rows.flatMap((row) => [
    [row.args ? `${row.name} ${row.args}` : row.name, row.help],
    ...(row.also ?? []).map(({ args, help }) => [`${row.name} ${args}`, help]),
  ]);
  const flags = Object.entries(options).map(([name, option]) => [
    `${option.short ? `-${option.short}, ` : ''}--${name}${option.value ? ` ${option.value}` : ''}`,
    option.help,
  ]);
  const width = Math.max(...[...commands, ...flags].map(([left]) => left.length)) + 2;
  const lines = (pairs: string[][]) =>
    pairs.map(([left, help]) => `  ${left.padEnd(width)}${help}\n`).join('');
  return `${head}\n\nCommands:\n${lines(commands)}\nOptions:\n${lines(flags)}\n${foot}`;
}

/** The row the positionals name, with the arguments that follow its name. */
export function commandFor<Options>(
  rows: CommandRow<Options>[],
  [word, ...rest]: string[],
): { row: CommandRow<Options>; args: string[] } {
  const byName = (name: string) => rows.find((row) => row.name === name);
  const sub = rest.length > 0 ? byName(`${word} ${rest[0]}`) : undefined;
  if (sub) return checked(sub, rest.slice(1));
  const row = byName(word);
  if (!row) throw new UsageError(`unknown command: ${word}`);
  // A command with subcommands takes no words of its own: another word is a subcommand it lacks.
  if (rest.length > 0 && rows.some((other) => other.name.startsWith(`${word} `)))
    throw new UsageError(`${word}: unknown subcommand: ${rest[0]}`);
  return checked(row, rest);
}

function checked<Options>(row: CommandRow<Options>, args: string[]) {
  if (row.needs !== undefined && (!args[0] || (row.onlyOne && args.length > 1)))
    throw needsError(row);
  return { row, args };
}
