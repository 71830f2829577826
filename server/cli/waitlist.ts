// Operator CLI for the embedded waitlist: `npm run waitlist -- <command>` (uses DATA_DIR).
// In the Docker image: `node dist/server/waitlist.js <command>`.
import { parseArgs } from 'node:util';
import { loadConfig } from '../config';
import { openStore, type Store } from '../store';
import { toCsv } from './csv';

export const HELP = `Usage: npm run waitlist -- <command> [options]

Commands:
  list                   signups as a table, newest first
  count                  number of signups
  export [--since DATE]  CSV (RFC 4180) to stdout: email,description,created_at,activated_at
  issue-key <email>      create an activation key for a waitlisted address (printed last)
  outbox                 submissions waiting to be delivered to BACKEND_URL
  backup <file>          consistent copy of the database (SQLite online backup), safe while the site runs

Options:
  --since DATE           only signups created at or after DATE (e.g. 2026-11-01)
  -h, --help             show this help

The database is DATA_DIR/waitlist.db (DATA_DIR defaults to ./data).
`;

export class UsageError extends Error {}

export interface CliIo {
  out: (text: string) => void;
}

function sinceOf(value: string | undefined): string {
  if (value === undefined) return '';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw new UsageError(`--since: not a date: ${value}`);
  return date.toISOString();
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n') + '\n';
}

function oneLine(text: string, max = 40): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export async function runCommand(store: Store, argv: string[], io: CliIo): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { since: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  const [command, ...rest] = positionals;
  if (values.help || command === 'help' || command === undefined) {
    io.out(HELP);
    return;
  }
  const { signups, outbox } = store;
  switch (command) {
    case 'list': {
      const rows = signups.list(sinceOf(values.since));
      io.out(table(['created_at', 'email', 'activated_at', 'description'], rows.map((r) => [r.created_at, r.email, r.activated_at ?? '', oneLine(r.description)])));
      io.out(`${rows.length} signup(s)\n`);
      return;
    }
    case 'count':
      io.out(`${signups.count()}\n`);
      return;
    case 'export': {
      const rows = signups.list(sinceOf(values.since));
      io.out(toCsv(['email', 'description', 'created_at', 'activated_at'], rows.map((r) => [r.email, r.description, r.created_at, r.activated_at])));
      return;
    }
    case 'issue-key': {
      const email = rest[0];
      if (!email) throw new UsageError('issue-key needs an email address');
      const key = signups.issueKey(email);
      io.out(`Activation key for ${email.trim()} (shown once, stored only as a hash):\n${key}\n`);
      return;
    }
    case 'outbox': {
      const items = outbox.all();
      io.out(
        table(
          ['id', 'created_at', 'path', 'attempts', 'next_attempt_at', 'last_error'],
          items.map((i) => [String(i.id), i.createdAt, i.request.path, String(i.attempts), new Date(i.nextAttemptAt).toISOString(), oneLine(i.lastError ?? '')]),
        ),
      );
      io.out(`${items.length} pending\n`);
      return;
    }
    case 'backup': {
      const file = rest[0];
      if (!file) throw new UsageError('backup needs a destination file');
      await store.db.backup(file);
      io.out(`Backed up ${signups.count()} signup(s) to ${file}\n`);
      return;
    }
    default:
      throw new UsageError(`unknown command: ${command}`);
  }
}

/** Exit code: 0 ok, 1 failure (unknown email, bad config), 2 usage error. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let store: Store | undefined;
  try {
    store = openStore(loadConfig(env));
    await runCommand(store, argv, { out: (text) => process.stdout.write(text) });
    return 0;
  } catch (err) {
    const usage = err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    process.stderr.write(`waitlist: ${(err as Error).message}\n${usage ? 'Run with --help for usage.\n' : ''}`);
    return usage ? 2 : 1;
  } finally {
    store?.close();
  }
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
