// Sending one claimed message and recording what became of it: sent, queued again after a
// temporary failure (4xx, refused connection, timeout), or failed for good (a 5xx for this
// message). Shared by the CLI, which sends right after inviting, and the site's mail worker.
//
// Exactly once, with one window: the message is marked sent only after the server has accepted
// it. A crash between the server's acceptance and that commit (or a reply lost on the wire) leaves
// the message queued, and it goes out again, with the same Message-ID, once its lease runs out.
import type { Logger } from '../logger';
import type { MailQueue, QueuedMail } from '../store/types';
import { describeMailError, isPermanentRefusal, isServerUnavailable, refusesTheRecipient, type Mailer } from './transport';

export type MailOutcome = 'sent' | 'queued' | 'failed';

export interface Sent {
  outcome: MailOutcome;
  /** The server itself could not be used (unreachable, too slow, login refused), not just this message. */
  serverUnavailable: boolean;
  /** The server refused the recipient for good: its signup is now marked undeliverable. */
  undeliverable?: boolean;
}

export async function sendClaimed(queue: MailQueue, mailer: Mailer, item: QueuedMail, logger?: Logger): Promise<Sent> {
  try {
    await mailer.send(item.id, item.message);
  } catch (err) {
    const reason = describeMailError(err);
    if (isPermanentRefusal(err)) {
      const undeliverable = refusesTheRecipient(err);
      await queue.failed(item.id, reason, undeliverable);
      logger?.warn({ mailId: item.id, reason, undeliverable }, 'mail refused for good');
      return { outcome: 'failed', serverUnavailable: false, undeliverable };
    }
    const dueAt = await queue.retry(item, reason);
    logger?.info({ mailId: item.id, reason, retryAt: new Date(dueAt).toISOString() }, 'mail queued for retry');
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
    logger?.warn({ mailId: item.id, attempts: item.attempts + 1 }, 'mail sent, but no longer ours to record');
  }
  return { outcome: 'sent', serverUnavailable: false };
}
