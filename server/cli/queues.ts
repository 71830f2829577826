// `mail` and `outbox`, and their `retry <id>`: one shape for both queues, so the two listings and
// the two retries cannot drift apart. Each queue differs only in the words and widths below.
import { listMail, listOutbox, retryMail, retryOutbox, type QueueListing, type RetryResult } from '../waitlist/queues';
import { oneLine, textTable } from './columns';
import { CommandError, needsError, type CliContext, type CommandRow } from './command-table';

interface QueueDoor<State extends string> {
  name: 'mail' | 'outbox';
  help: string;
  retryHelp: string;
  /** What one item is called in messages ('outbox item 3'). */
  item: string;
  /** The heading of the column that says where an item goes. */
  target: string;
  /** How much of the last error a row shows. */
  errorChars: number;
  list(context: CliContext): Promise<QueueListing<State>>;
  summary(counts: Record<State, number>): string;
  retry(context: CliContext, id: number): Promise<RetryResult>;
  /** What happened to it, after "<item> <id> ". */
  retried: string;
}

export const MAIL_ROWS = queueRows({
  name: 'mail',
  help: 'invitation mail still queued, refused or dead (no message bodies, no keys)',
  retryHelp: 'send a dead message again (one that failed past QUEUE_MAX_AGE_HOURS)',
  item: 'mail',
  target: 'to',
  errorChars: 60,
  list: listMail,
  summary: (counts) => `${counts.queued} queued, ${counts.failed} failed, ${counts.dead} dead`,
  retry: retryMail,
  retried: 'is queued again; the running site sends it',
});

export const OUTBOX_ROWS = queueRows({
  name: 'outbox',
  help: 'submissions waiting to be delivered to BACKEND_URL, and dead ones',
  retryHelp: 'deliver a dead submission again',
  item: 'outbox item',
  target: 'path',
  errorChars: 40,
  list: listOutbox,
  summary: (counts) => `${counts.pending} pending, ${counts.dead} dead`,
  retry: retryOutbox,
  retried: 'is pending again, due now',
});

/** The listing row and the retry row of one queue. */
function queueRows<State extends string>(door: QueueDoor<State>): [CommandRow<unknown>, CommandRow<unknown>] {
  const retryRow: CommandRow<unknown> = {
    name: `${door.name} retry`,
    args: '<id>',
    help: door.retryHelp,
    needs: 'an id (a whole number)',
    store: 'writes',
    async run(context, [id], _options, io) {
      if (!/^\d+$/.test(id) || !Number.isSafeInteger(Number(id))) throw needsError(retryRow);
      const result = await door.retry(context, Number(id));
      if (result.kind === 'not-dead') throw new CommandError(`${door.item} ${result.id} is not dead (see: waitlist ${door.name})`);
      await io.out(`${door.item} ${result.id} ${door.retried}\n`);
      return 0;
    },
  };
  const listRow: CommandRow<unknown> = {
    name: door.name,
    help: door.help,
    async run(context, _args, _options, io) {
      const { entries, counts } = await door.list(context);
      await io.out(
        textTable(
          ['id', 'created_at', door.target, 'state', 'attempts', 'next_attempt_at', 'last_error'],
          entries.map((entry) => [
            String(entry.id),
            entry.createdAt,
            entry.target,
            entry.state,
            String(entry.attempts),
            entry.nextAttemptAt === undefined ? '' : new Date(entry.nextAttemptAt).toISOString(),
            oneLine(entry.lastError ?? '', door.errorChars),
          ]),
        ),
      );
      await io.out(`${door.summary(counts)}\n`);
      return 0;
    },
  };
  return [listRow, retryRow];
}
