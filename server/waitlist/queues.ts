// The two durable queues as the operator sees them: the invitation mail and the outbox of signups
// waiting for BACKEND_URL. Both list in one shape and give a dead item one more life the same way,
// so every caller (CLI, console) shows and retries them alike.
import type { Store } from '../store';
import type { MailState } from '../store/mail-queue';

export interface QueueEntry {
  id: number;
  createdAt: string;
  /** Where it goes: the mail's recipient, or the API path the outbox posts to. */
  target: string;
  state: string;
  attempts: number;
  /** When it is tried next; only while it is waiting for that. */
  nextAttemptAt?: number;
  lastError: string | null;
}

export interface QueueListing<State extends string> {
  /** Oldest first; mail already sent is not among them. */
  entries: QueueEntry[];
  counts: Record<State, number>;
}

export type OutboxState = 'pending' | 'dead';

export type RetryResult = { kind: 'retried'; id: number } | { kind: 'not-dead'; id: number };

type QueueDeps<Name extends 'mail' | 'outbox'> = { store: Pick<Store, Name> };

/** Queued, failed and dead mail; never a body or a key. */
export async function listMail({ store }: QueueDeps<'mail'>): Promise<QueueListing<MailState>> {
  const items = await store.mail.pending();
  const entries = items.map(({ id, createdAt, to, state, attempts, nextAttemptAt, lastError }) => ({
    id,
    createdAt,
    target: to,
    state,
    attempts,
    nextAttemptAt: state === 'queued' ? nextAttemptAt : undefined,
    lastError,
  }));
  return { entries, counts: await store.mail.counts() };
}

/** Pending and dead submissions. */
export async function listOutbox({
  store,
}: QueueDeps<'outbox'>): Promise<QueueListing<OutboxState>> {
  const items = await store.outbox.all();
  const entries = items.map(
    ({ id, createdAt, request, state, attempts, nextAttemptAt, lastError }) => ({
      id,
      createdAt,
      target: request.path,
      state,
      attempts,
      nextAttemptAt: state === 'pending' ? nextAttemptAt : undefined,
      lastError,
    }),
  );
  const dead = items.filter((item) => item.state === 'dead').length;
  return { entries, counts: { pending: items.length - dead, dead } };
}

const retried = (id: number, done: boolean): RetryResult =>
  done ? { kind: 'retried', id } : { kind: 'not-dead', id };

/** A dead message queued again, due now: the running site sends it. */
export async function retryMail({ store }: QueueDeps<'mail'>, id: number): Promise<RetryResult> {
  return retried(id, await store.mail.requeue(id));
}

/** A dead submission pending again, due now: the running site delivers it. */
export async function retryOutbox(
  { store }: QueueDeps<'outbox'>,
  id: number,
): Promise<RetryResult> {
  return retried(id, await store.outbox.retry(id));
}
