// Operator CLI for the embedded waitlist: `npm run waitlist -- <command>` (uses DATA_DIR).
// In the Docker image: `node dist/server/waitlist.js <command>`.
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfig, type Config } from '../config';
import { createMailer, emlFile, emlTemporaryFile } from '../mail/transport';
import type { SqliteStore, Store } from '../store';
import { openConfiguredStore } from '../store/open';
import { csvLine } from './csv';
import { dryRun, inviteAll, OUTCOME_LABELS, type InviteOutcome } from './invite';

export const HELP = `Usage: npm run waitlist -- <command> [options]

Commands:
  list                   signups as a table, newest first
  count                  number of signups
  stats                  signups by state (waitlisted, invited, activated) and mail by state
  export [--since DATE]  CSV (RFC 4180) to stdout: email,description,created_at,invited_at,activated_at
  invite <email>...      e-mail an activation key to waitlisted addresses
  invite --next N        the same for the N oldest addresses not invited yet
  mail                   invitation mail still queued, refused or dead (no message bodies, no keys)
  mail retry <id>        send a dead message again (one that failed past QUEUE_MAX_AGE_HOURS)
  remove <email>         delete an address with its keys and mail (right to erasure)
  issue-key <email>      create an activation key for a waitlisted address (printed last)
  outbox                 submissions waiting to be delivered to BACKEND_URL, and dead ones
  outbox retry <id>      deliver a dead submission again
  migrate                apply the schema migrations of this release, without starting the site
  backup <file>          consistent copy of the database (SQLite online backup), safe while the site runs

Options:
  --since DATE           only signups created at or after DATE (e.g. 2026-11-01)
  --next N               invite: the N oldest waitlisted addresses not invited yet
  --again                invite: also addresses already invited (a new key; the old one stops working)
  --dry-run              invite: list who would be invited, change nothing
  -h, --help             show this help

The store is PostgreSQL at DATABASE_URL when it is set, otherwise DATA_DIR/waitlist.db (DATA_DIR
defaults to ./data). invite needs SITE_URL (the
link in the mail) and sends through SMTP_URL; without SMTP_URL each mail is written to
DATA_DIR/mail/<id>.eml. Mail the server cannot take now is retried by the running site.
`;

export class UsageError extends Error {}

/** A refusal that is not a usage mistake (exit code 1), with a message that says what to do. */
export class CommandError extends Error {}

export interface CliIo {
  /** Resolves when the text may be followed by more (a pipe's backpressure: export never piles up). */
  out: (text: string) => void | Promise<void>;
}

interface CliContext {
  store: Store | SqliteStore;
  config: Config;
}

/** Exit code of a command that ran: 0, or 1 when some of its work could not be done. */
type Status = 0 | 1;

function sinceOf(value: string | undefined): string {
  if (value === undefined) return '';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw new UsageError(`--since: not a date: ${value}`);
  return date.toISOString();
}

function countOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value))) {
    throw new UsageError(`--next: not a positive whole number: ${value}`);
  }
  return Number(value);
}

function idOf(value: string | undefined, command: string): number {
  if (value === undefined || !/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) throw new UsageError(`${command} needs an id (a whole number)`);
  return Number(value);
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

const LABEL_WIDTH = Math.max(...Object.values(OUTCOME_LABELS).map((label) => label.length));

async function invite({ store, config }: CliContext, addresses: string[], next: number | undefined, flags: { again: boolean; dryRun: boolean }, io: CliIo): Promise<Status> {
  if (next !== undefined && addresses.length > 0) throw new UsageError('invite takes addresses or --next N, not both');
  if (next === undefined && addresses.length === 0) throw new UsageError('invite needs addresses or --next N');
  if (config.backendUrl) {
    throw new CommandError(
      'BACKEND_URL is set: signups live in the backend, so invitations belong there too. Invite from the embedded store (no BACKEND_URL).',
    );
  }
  const siteUrl = config.siteUrl;
  if (!siteUrl) throw new CommandError('invite needs SITE_URL, the public address of this site, for the activation link in the mail.');

  const targets = next === undefined ? addresses : await store.signups.oldestWaiting(next);
  const tally = new Map<string, number>();
  const report = (email: string, outcome: InviteOutcome | 'would-invite') => {
    tally.set(outcome, (tally.get(outcome) ?? 0) + 1);
    io.out(`${OUTCOME_LABELS[outcome].padEnd(LABEL_WIDTH)}  ${email}\n`);
  };
  if (flags.dryRun) {
    await dryRun(store, targets, flags.again, report);
    io.out(`${tally.get('would-invite') ?? 0} would be invited (dry run: nothing changed)\n`);
    return tally.has('not-on-waitlist') || tally.has('unmailable') ? 1 : 0;
  }

  const mailer = createMailer(config);
  try {
    await inviteAll({ store, config: { ...config, siteUrl }, mailer }, targets, flags.again, report);
  } finally {
    mailer.close();
  }
  const counts = (['sent', 'queued', 'failed', 'skipped', 'not-on-waitlist', 'unmailable'] as const).map((o) => `${tally.get(o) ?? 0} ${OUTCOME_LABELS[o]}`);
  io.out(`${counts.join(', ')}\n`);
  io.out(config.smtpUrl ? `Mail goes through ${mailer.where}.\n` : `No SMTP_URL set: mail written as .eml files to ${mailer.where}\n`);
  if (tally.has('queued')) io.out('Queued mail is retried by the running site (see: waitlist mail).\n');
  return tally.has('not-on-waitlist') || tally.has('failed') || tally.has('unmailable') ? 1 : 0;
}

async function remove({ store, config }: CliContext, email: string, io: CliIo): Promise<Status> {
  const erased = await store.erase(email);
  let files = 0;
  for (const id of erased.mailIds) {
    // The finished file, and one a crash left half-written: both hold the address and a key.
    for (const file of [emlFile(config.dataDir, id), emlTemporaryFile(config.dataDir, id)]) {
      try {
        fs.unlinkSync(file);
        if (file.endsWith('.eml')) files++;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err; // sent over SMTP: no file
      }
    }
  }
  if (!erased.signup && erased.outbox === 0) {
    io.out(`Nothing stored for ${email.trim()}\n`);
    return 1;
  }
  const parts = [
    erased.signup ? 'the signup' : 'no signup',
    `${erased.keys} activation key(s)`,
    `${erased.mailIds.length} mail(s)${files ? ` and ${files} .eml file(s)` : ''}`,
    `${erased.outbox} outbox item(s)`,
  ];
  io.out(`Removed ${email.trim()}: ${parts.join(', ')}\n`);
  return 0;
}

export async function runCommand(context: CliContext, argv: string[], io: CliIo): Promise<Status> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      since: { type: 'string' },
      next: { type: 'string' },
      again: { type: 'boolean', default: false },
      'dry-run': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || command === 'help' || command === undefined) {
    io.out(HELP);
    return 0;
  }
  const { store } = context;
  const { signups, outbox } = store;
  switch (command) {
    case 'list': {
      const rows = await signups.list(sinceOf(values.since));
      io.out(
        table(
          ['created_at', 'email', 'invited_at', 'activated_at', 'description'],
          rows.map((r) => [r.created_at, r.email, r.invited_at ?? '', r.activated_at ?? '', oneLine(r.description)]),
        ),
      );
      io.out(`${rows.length} signup(s)\n`);
      return 0;
    }
    case 'migrate':
      // Opening the store applied any migration this release has; ping checks the result.
      await store.ping();
      io.out(`Schema up to date (${store.engine === 'postgres' ? 'PostgreSQL at DATABASE_URL' : 'SQLite in DATA_DIR'})\n`);
      return 0;
    case 'count':
      io.out(`${await signups.count()}\n`);
      return 0;
    case 'stats': {
      const { total, waitlisted, invited, activated } = await signups.stats();
      const mail = await store.mail.counts();
      io.out(table(['state', 'signups'], [['waitlisted', String(waitlisted)], ['invited', String(invited)], ['activated', String(activated)], ['total', String(total)]]));
      io.out(`mail: ${mail.queued} queued, ${mail.failed} failed, ${mail.dead} dead, ${mail.sent} sent\n`);
      return 0;
    }
    case 'export': {
      // Streamed: each row is written as it is read, in chunks, waiting whenever the pipe is full,
      // so a million signups take the memory of one chunk.
      let chunk = csvLine(['email', 'description', 'created_at', 'invited_at', 'activated_at']);
      for await (const r of signups.stream(sinceOf(values.since))) {
        chunk += csvLine([r.email, r.description, r.created_at, r.invited_at, r.activated_at]);
        if (chunk.length >= 64 * 1024) {
          await io.out(chunk);
          chunk = '';
        }
      }
      await io.out(chunk);
      return 0;
    }
    case 'invite':
      return invite(context, rest, countOf(values.next), { again: values.again, dryRun: values['dry-run'] }, io);
    case 'mail': {
      if (rest[0] === 'retry') {
        const id = idOf(rest[1], 'mail retry');
        if (!(await store.mail.requeue(id))) throw new CommandError(`mail ${id} is not dead (see: waitlist mail)`);
        io.out(`mail ${id} is queued again; the running site sends it\n`);
        return 0;
      }
      if (rest.length > 0) throw new UsageError(`mail: unknown subcommand: ${rest[0]}`);
      const items = await store.mail.pending();
      io.out(
        table(
          ['id', 'created_at', 'to', 'state', 'attempts', 'next_attempt_at', 'last_error'],
          items.map((m) => [
            String(m.id),
            m.createdAt,
            m.to,
            m.state,
            String(m.attempts),
            m.state === 'queued' ? new Date(m.nextAttemptAt).toISOString() : '',
            oneLine(m.lastError ?? '', 60),
          ]),
        ),
      );
      const counts = await store.mail.counts();
      io.out(`${counts.queued} queued, ${counts.failed} failed, ${counts.dead} dead\n`);
      return 0;
    }
    case 'remove': {
      if (rest.length !== 1) throw new UsageError('remove needs exactly one email address');
      return await remove(context, rest[0], io);
    }
    case 'issue-key': {
      const email = rest[0];
      if (!email) throw new UsageError('issue-key needs an email address');
      const key = await store.subscriptions.issueKey(email);
      io.out(`Activation key for ${email.trim()} (shown once, stored only as a hash):\n${key}\n`);
      return 0;
    }
    case 'outbox': {
      if (rest[0] === 'retry') {
        const id = idOf(rest[1], 'outbox retry');
        if (!(await outbox.retry(id))) throw new CommandError(`outbox item ${id} is not dead (see: waitlist outbox)`);
        io.out(`outbox item ${id} is pending again, due now\n`);
        return 0;
      }
      if (rest.length > 0) throw new UsageError(`outbox: unknown subcommand: ${rest[0]}`);
      const items = await outbox.all();
      io.out(
        table(
          ['id', 'created_at', 'path', 'state', 'attempts', 'next_attempt_at', 'last_error'],
          items.map((i) => [
            String(i.id),
            i.createdAt,
            i.request.path,
            i.state,
            String(i.attempts),
            i.state === 'pending' ? new Date(i.nextAttemptAt).toISOString() : '',
            oneLine(i.lastError ?? ''),
          ]),
        ),
      );
      const dead = items.filter((i) => i.state === 'dead').length;
      io.out(`${items.length - dead} pending, ${dead} dead\n`);
      return 0;
    }
    case 'backup': {
      const file = rest[0];
      if (!file) throw new UsageError('backup needs a destination file');
      if (!store.backup) throw new CommandError('backup copies the SQLite file; with DATABASE_URL, back up PostgreSQL with pg_dump (README, "Backups").');
      await store.backup(file);
      io.out(`Backed up ${await signups.count()} signup(s) to ${file}\n`);
      return 0;
    }
    default:
      throw new UsageError(`unknown command: ${command}`);
  }
}

/** Exit code: 0 ok, 1 failure (unknown email, bad config, mail refused), 2 usage error. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let store: Store | undefined;
  try {
    const config = loadConfig(env);
    // Help needs no store: it works while the database is down.
    if (argv.length === 0 || argv.some((arg) => arg === '-h' || arg === '--help' || arg === 'help')) {
      process.stdout.write(HELP);
      return 0;
    }
    // The CLI does not wait for a database that is down: it says so at once.
    store = await openConfiguredStore(config, undefined, 0);
    return await runCommand({ store, config }, argv, { out: writeOut });
  } catch (err) {
    const usage = err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    process.stderr.write(`waitlist: ${(err as Error).message}\n${usage ? 'Run with --help for usage.\n' : ''}`);
    return usage ? 2 : 1;
  } finally {
    await store?.close();
  }
}

/** Writes to stdout, resolving once the pipe can take more (a reader slower than the export). */
function writeOut(text: string): Promise<void> | void {
  if (process.stdout.write(text)) return;
  return new Promise((resolve) => process.stdout.once('drain', () => resolve()));
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
