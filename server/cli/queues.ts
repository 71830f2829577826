// `mail` and `outbox`, and their `retry <id>`: one shape for both queues, so the two listings and
// the two retries cannot drift apart. Each queue differs only in the labels and widths below.
import {
  listMail,
  listOutbox,
  retryMail,
  retryOutbox,
  type QueueListing,
  type RetryResult,
} from '../waitlist/queues';
import { oneLine, textTable } from './columns';
import { CommandError, needsError, type CliContext, type CommandRow } from './command-table';

interface QueueCommands<State extends string> {
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
function queueRows<State extends string>(
  queue: QueueCommands<State>,
): [CommandRow<unknown>, CommandRow<unknown>] {
  const retryRow: CommandRow<unknown> = {
    name: `${queue.name} retry`,
    args: '<id>',
    help: queue.retryHelp,
    needs: 'an id (a whole number)',
    store: 'writes',
    async run(context, [id], _options, io) {
      if (!/^\d+$/.test(id) || !Number.isSafeInteger(Number(id))) throw needsError(retryRow);
      const result = await queue.retry(context, Number(id));
      if (result.kind === 'not-dead')
        throw new CommandError(
          `${queue.item} ${result.id} is not dead (see: waitlist ${queue.name})`,
        );
      await io.out(`${queue.item} ${result.id} ${queue.retried}\n`);
      return 0;
    },
  };
  const listRow: CommandRow<unknown> = {
    name: queue.name,
    help: queue.help,
    async run(context, _args, _options, io) {
      const { entries, counts } = await queue.list(context);
      await io.out(
        textTable(
          ['id', 'created_at', queue.target, 'state', 'attempts', 'next_attempt_at', 'last_error'],
          entries.map((entry) => [
            String(entry.id),
            entry.createdAt,
            entry.target,
            entry.state,
            String(entry.attempts),
            entry.nextAttemptAt === undefined ? '' : new Date(entry.nextAttemptAt).toISOString(),
            oneLine(entry.lastError ?? '', queue.errorChars),
          ]),
        ),
      );
      await io.out(`${queue.summary(counts)}\n`);
      return 0;
    },
  };
  return [listRow, retryRow];
}
