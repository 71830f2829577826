// The operators' commands as the docs write them, read at test time: the fenced ```sh blocks of
// a named section (or list item) of a Markdown file, and an operator's shell that runs them one
// by one with the few changes a test machine needs, and remembers which ones it ran.
import fs from 'node:fs';
import path from 'node:path';
import { BUILD_TIMEOUT_MS, ROOT, sh, type Run } from './docker';

/** The Compose blocks of the upgrade and the rollback, one per path: compose-upgrade.test.ts. */
export const COMPOSE_UPGRADE = {
  file: 'docs/operating.md',
  sections: ['### Upgrade with Compose', '### Rollback with Compose'],
} as const;

export interface Block {
  /** Where the block is written, e.g. `docs/operating.md, ## Upgrade, block 2`. */
  where: string;
  commands: string[];
}

/** The section under `heading` (the whole heading line), up to the next heading of its level. */
export function section(file: string, heading: string): string {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const lines = text.split('\n');
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`${file} has no heading "${heading}": the test reads it`);
  const level = heading.indexOf(' ');
  const isEnd = (line: string) => /^#+ /.test(line) && line.indexOf(' ') <= level;
  const end = lines.findIndex((line, i) => i > start && isEnd(line));
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}

/** The list item of `text` that starts with `lead` (e.g. `- **Docker**:`), up to the next item. */
export function listItem(text: string, lead: string, where: string): string {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => line.startsWith(lead));
  if (start < 0) throw new Error(`${where} has no list item starting "${lead}": the test reads it`);
  const end = lines.findIndex((line, i) => i > start && /^(- |\S)/.test(line));
  return lines.slice(start, end < 0 ? undefined : end).join('\n');
}

/** The fenced sh blocks of `text` (also those indented under a list item), each as commands. */
export function shBlocks(text: string, where: string): Block[] {
  const fence = /^( *)```sh\n([\s\S]*?)^\1```$/gm;
  const blocks = [...text.matchAll(fence)].map((match, i) => {
    const indent = match[1];
    const body = match[2].replace(new RegExp(`^${indent}`, 'gm'), '');
    return { where: `${where}, block ${i + 1}`, commands: commands(body) };
  });
  if (blocks.length === 0) throw new Error(`${where} has no \`\`\`sh block: the test runs them`);
  return blocks;
}

/**
 * A block's commands as a shell reads them: a line ending in a backslash goes on with the next
 * (kept as written, also inside quotes), and blank lines and whole-line comments are skipped.
 */
export function commands(body: string): string[] {
  const found: string[] = [];
  let current: string[] = [];
  for (const line of body.split('\n')) {
    if (current.length === 0 && (line.trim() === '' || line.trim().startsWith('#'))) continue;
    current.push(line);
    if (!line.endsWith('\\')) {
      found.push(current.join('\n'));
      current = [];
    }
  }
  if (current.length > 0) found.push(current.join('\n'));
  return found;
}

export interface OperatorOptions {
  /** The checkout the operator works in. */
  cwd: string;
  /** Each key found in a command is replaced by its value, in this order. */
  substitutions: [string, string][];
  env?: Record<string, string>;
}

/**
 * An operator's shell: `cd` moves it, every other command runs with bash as written (after the
 * substitutions). docker-compose 1.29 gives `exec` a terminal unless `-T` and refuses to run
 * without one; an operator has one, so such a command gets a terminal from script(1).
 */
export class OperatorShell {
  cwd: string;
  readonly ran = new Set<string>();

  constructor(private readonly options: OperatorOptions) {
    this.cwd = options.cwd;
  }

  /** Runs one command as written; throws with its output unless it exits 0. */
  run(command: string, input?: string): Run {
    this.ran.add(command);
    const cd = /^cd (\S+)$/.exec(command);
    if (cd) {
      this.cwd = path.resolve(this.cwd, cd[1]);
      return { status: 0, stdout: '', stderr: '' };
    }
    let line = command;
    for (const [from, to] of this.options.substitutions) line = line.split(from).join(to);
    if (/docker(-| )compose exec (?!.*-T )/.test(line)) {
      line = `script --quiet --return --flush --command ${quote(line)} /dev/null`;
    }
    // A build (docker build, or compose up building the image) may install every dependency.
    const builds = /docker build|compose up/.test(line);
    const timeoutMs = builds ? BUILD_TIMEOUT_MS : undefined;
    const result = sh(line, {
      cwd: this.cwd,
      input: input ?? '',
      env: this.options.env,
      timeoutMs,
    });
    if (result.status !== 0) {
      const output = `${result.stdout}${result.stderr}`.trim();
      throw new Error(`\`${line}\` exited ${result.status} in ${this.cwd}:\n${output}`);
    }
    return result;
  }

  /** Runs every command of `block` in order; the output of the last one. */
  runBlock(block: Block, input?: string): Run {
    let last: Run = { status: 0, stdout: '', stderr: '' };
    for (const command of block.commands) last = this.run(command, input);
    return last;
  }
}

function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
