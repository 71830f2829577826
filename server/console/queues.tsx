// /admin/mail and /admin/outbox: the two queues as `waitlist mail` and `waitlist outbox` list them
// (the same operations, waitlist/queues.ts): queued, failed and dead items, no message body, no
// key. A dead item has a Retry button, as `… retry <id>` gives it one more life.
import type { QueueListing } from '../waitlist/queues';
import { Hidden, PostForm } from './layout';
import { ConsoleTable, When, Word } from './table';

export type QueueName = 'mail' | 'outbox';

export const TITLES: Record<QueueName, string> = { mail: 'Mail', outbox: 'Outbox' };

interface QueuePageProps {
  name: QueueName;
  listing: QueueListing<string>;
  csrf: string;
  /** What a retry did, above the list. */
  notice?: string;
}

export function QueuePage({ name, listing, csrf, notice }: QueuePageProps) {
  const counts = Object.entries(listing.counts)
    .map(([state, n]) => `${n} ${state}`)
    .join(', ');
  const rows = listing.entries.map((item) => ({
    key: item.id,
    cells: [
      item.id,
      item.target,
      <Word>{item.state}</Word>,
      item.attempts,
      item.nextAttemptAt === undefined ? (
        ''
      ) : (
        <When iso={new Date(item.nextAttemptAt).toISOString()} />
      ),
      item.lastError ?? '',
      item.state === 'dead' && (
        <PostForm action={`/admin/${name}/retry`} csrf={csrf}>
          <Hidden name="id" value={item.id} />
          <button type="submit" className="button button-secondary">
            Retry
          </button>
        </PostForm>
      ),
    ],
  }));
  return (
    <>
      <h1>{TITLES[name]}</h1>
      <p>
        <a href="/admin">Dashboard</a>
      </p>
      {notice && <p role="status">{notice}</p>}
      <p>{counts}</p>
      <ConsoleTable
        caption={`${TITLES[name]} waiting, refused or dead, oldest first`}
        columns={[
          'Id',
          name === 'mail' ? 'To' : 'Path',
          'State',
          'Attempts',
          'Next attempt',
          'Last error',
          'Action',
        ]}
        rows={rows}
        empty="Nothing waiting."
      />
    </>
  );
}
