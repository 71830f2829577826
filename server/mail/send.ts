// Sending one claimed message and recording what became of it: sent, queued again after a
// temporary failure (4xx, refused connection, timeout), or failed for good (a 5xx for this
// message). Shared by the CLI, which sends right after inviting, and the site's mail worker.
//
// Exactly once, with one window: the message is marked sent only after the server has accepted
// it. A crash between the server's acceptance and that commit (or a reply lost on the wire) leaves
// the message queued, and it goes out again, with the same Message-ID, once its lease runs out.
import type { Logger } from '../logger';
import type { MailQueue, QueuedMail } from '../store/mail-queue';
import {
  describeMailError,
  isPermanentRefusal,
  isServerUnavailable,
  refusesTheRecipient,
  type Mailer,
} from './transport';

export type MailOutcome = 'sent' | 'queued' | 'failed';

export interface Sent {
  outcome: MailOutcome;
  /**
   * The server itself could not be used (unreachable, too slow, login refused), not just this
   * message.
   */
  serverUnavailable: boolean;
  /** The server refused the recipient for good: its signup is now marked undeliverable. */
  undeliverable?: boolean;
}

const ignore = () => undefined;

/** Leases a send may hold its message for, at most. */
const MAX_LEASES = 10;

/**
 * Keeps the sender's claim on a message while the mail server has it, renewed every third of a
 * lease. A send has no overall deadline: each reply may take SMTP_TIMEOUT_MS, and a message may
 * first wait for one of the pool's connections. Without renewal a slow server let the lease run
 * out under a live send, and another replica sent the message again. A sender that dies stops
 * renewing, and its claim runs out as before; so does one whose send is stuck past MAX_LEASES
 * (an honest send waits for at most one message ahead of it on its connection, the worker's batch
 * being twice the pool, and each has a few waits). stop() waits for a renewal under way, so the
 * outcome is recorded against the claim's latest lease.
 */
function keepClaimed(queue: MailQueue, id: number): { stop(): Promise<void> } {
  // A store that fails to answer: the claim runs out as it would have, nothing else is lost.
  const renew = () => queue.renew(id).then(ignore, ignore);
  let renewing = Promise.resolve();
  let renewals = 0;
  const timer = setInterval(
    () => {
      if (++renewals > MAX_LEASES * 3) clearInterval(timer);
      else renewing = renewing.then(renew);
    },
    Math.max(100, queue.leaseMs / 3),
  );
  return {
    async stop() {
      clearInterval(timer);
      await renewing;
    },
  };
}

export async function sendClaimed(
  queue: MailQueue,
  mailer: Mailer,
  item: QueuedMail,
  logger?: Logger,
): Promise<Sent> {
  const claim = keepClaimed(queue, item.id);
  try {
    // The claim stops being renewed before any outcome is recorded, whichever it is.
    await mailer.send(item.id, item.message).finally(() => claim.stop());
  } catch (err) {
    const reason = describeMailError(err);
    if (isPermanentRefusal(err)) {
      const undeliverable = refusesTheRecipient(err);
      await queue.failed(item.id, reason, undeliverable);
      logger?.warn({ mailId: item.id, reason, undeliverable }, 'mail refused for good');
      return { outcome: 'failed', serverUnavailable: false, undeliverable };
    }
    const dueAt = await queue.retry(item, reason);
    logger?.info(
      { mailId: item.id, reason, retryAt: new Date(dueAt).toISOString() },
      'mail queued for retry',
    );
    return { outcome: 'queued', serverUnavailable: isServerUnavailable(err) };
  }
  if (await queue.sent(item.id)) {
    logger?.info({ mailId: item.id, attempts: item.attempts + 1 }, 'mail sent');
  } else if (!(await queue.exists(item.id))) {
    // Its address was erased while it was being sent: the erasure removed the .eml files there
    // were, and this one was written after. Take it back, so nothing of the person stays.
    await mailer.withdraw?.(item.id);
    logger?.info({ mailId: item.id }, 'mail sent as its address was erased; its copy withdrawn');
  } else {
    // This sender outlived its lease and another holds the message now (its record stands:
    // server/store/leases.ts). The server took it all the same.
    logger?.warn(
      { mailId: item.id, attempts: item.attempts + 1 },
      'mail sent, but no longer ours to record',
    );
  }
  return { outcome: 'sent', serverUnavailable: false };
}
