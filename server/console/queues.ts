// /admin/mail and /admin/outbox (issue 24): the two queues as `waitlist mail` and `waitlist outbox`
// list them (the same operations, waitlist/queues.ts): queued, failed and dead items, no message
// body, no key. A dead item has a Retry button, as `… retry <id>` gives it one more life.
import { consoleTable, when, word } from './table';
import { escapeMarkup as e } from '../../shared/markup';
import type { QueueListing } from '../waitlist/queues';
import { postForm } from './pages';

export type QueueName = 'mail' | 'outbox';

export const TITLES: Record<QueueName, string> = { mail: 'Mail', outbox: 'Outbox' };

export function queuePage(name: QueueName, listing: QueueListing<string>, csrf: string, notice = ''): string {
  const counts = Object.entries(listing.counts)
    .map(([state, n]) => `${n} ${state}`)
    .join(', ');
  const rows = listing.entries.map((item) => [
    String(item.id),
    e(item.target),
    word(item.state),
    String(item.attempts),
    item.nextAttemptAt === undefined ? '' : when(new Date(item.nextAttemptAt).toISOString()),
    e(item.lastError ?? ''),
    item.state === 'dead'
      ? postForm(
          `/admin/${name}/retry`,
          csrf,
          `<input type="hidden" name="id" value="${item.id}"><button type="submit" class="button button-secondary">Retry</button>`,
        )
      : '',
  ]);
  return (
    `<h1>${TITLES[name]}</h1><p><a href="/admin">Dashboard</a></p>${notice ? `<p role="status">${e(notice)}</p>` : ''}` +
    `<p>${e(counts)}</p>` +
    consoleTable({
      caption: `${TITLES[name]} waiting, refused or dead, oldest first`,
      columns: ['Id', name === 'mail' ? 'To' : 'Path', 'State', 'Attempts', 'Next attempt', 'Last error', 'Action'],
      rows,
      empty: 'Nothing waiting.',
    })
  );
}
