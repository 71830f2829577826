// The mail queue and the outbox, one page each, as `waitlist mail` and `waitlist outbox` list
// them (the same operations, waitlist/queues.ts): queued, failed and dead items, no message body,
// no key. A dead item has a Retry button, as `… retry <id>` gives it one more life.
import type { Response } from 'express';
import { fieldsOf } from '../../http/body';
import type { Store } from '../../store';
import {
  listMail,
  listOutbox,
  retryMail,
  retryOutbox,
  type QueueListing,
} from '../../waitlist/queues';
import { Hidden, PostForm } from '../layout';
import { CONSOLE_URLS } from '../paths';
import { audit, text } from '../request';
import type { ConsoleRoute, RouteModule } from '../route';
import { ConsoleTable, StateLabel, Timestamp } from '../table';

export type QueueName = 'mail' | 'outbox';

export const TITLES: Record<QueueName, string> = { mail: 'Mail', outbox: 'Outbox' };

// Loader: each queue's listing, with its retry beside it (the CLI's own operations).

const queueOperations = (store: Store) =>
  ({
    mail: { list: () => listMail({ store }), retry: (id: number) => retryMail({ store }, id) },
    outbox: {
      list: () => listOutbox({ store }),
      retry: (id: number) => retryOutbox({ store }, id),
    },
  }) as const;

// View

interface QueueViewProps {
  name: QueueName;
  listing: QueueListing<string>;
  csrf: string;
  /** What a retry did, above the list. */
  notice?: string;
}

export function QueueView({ name, listing, csrf, notice }: QueueViewProps) {
  const counts = Object.entries(listing.counts)
    .map(([state, n]) => `${n} ${state}`)
    .join(', ');
  const rows = listing.entries.map((item) => ({
    key: item.id,
    cells: [
      item.id,
      item.target,
      <StateLabel>{item.state}</StateLabel>,
      item.attempts,
      item.nextAttemptAt === undefined ? (
        ''
      ) : (
        <Timestamp iso={new Date(item.nextAttemptAt).toISOString()} />
      ),
      item.lastError ?? '',
      item.state === 'dead' && (
        <PostForm action={CONSOLE_URLS[`${name}Retry`]} csrf={csrf}>
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
        <a href={CONSOLE_URLS.dashboard}>Dashboard</a>
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

// Routes: each queue's page, and its Retry.

export const queueRoutes: RouteModule = ({ store }) =>
  (['mail', 'outbox'] as const).flatMap((name): ConsoleRoute[] => {
    const queue = queueOperations(store)[name];
    /** The queue's page as it is now, with what a retry did when there was one. */
    const page = async (res: Response, notice?: string) => ({
      title: TITLES[name],
      view: (
        <QueueView
          name={name}
          listing={await queue.list()}
          csrf={res.locals.consoleSession.csrf}
          notice={notice}
        />
      ),
    });
    return [
      { method: 'get', name, handle: (_req, res) => page(res) },
      {
        method: 'post',
        name: `${name}Retry`,
        handle: async (req, res) => {
          const id = Number(text(fieldsOf(req).id));
          const result =
            Number.isSafeInteger(id) && id > 0
              ? await queue.retry(id)
              : { kind: 'not-dead' as const, id };
          const retried = result.kind === 'retried';
          if (retried) await audit(store, res, `retry ${name}`, 1);
          const notice = retried
            ? `Item ${id} is queued again; the running site sends it.`
            : `Item ${id} is not dead: nothing to retry.`;
          return { ...(await page(res, notice)), status: retried ? 200 : 409 };
        },
      },
    ];
  });
