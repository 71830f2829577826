// Background delivery of the outbox: claims due items (a lease, so another replica's worker never
// takes the same one), re-sends each exactly as its first attempt went (postSignup: same path,
// fields, forwarded headers and Idempotency-Key), and removes it once the backend answers
// anything but "not now" (a 5xx, 408 or 429: isNotNow). Failures back off (store/outbox.ts). A
// full batch is followed at once by the next, unless the backend failed: then the rest waits for
// its own backoff. stop() waits for the sends in flight.
import type { Logger } from '../logger';
import { NO_METRICS, type Metrics } from '../metrics';
import type { Outbox, OutboxItem } from '../store/outbox';
import { isNotNow, postSignup } from '../backend/client';
import { startPoller } from './poller';

interface OutboxWorkerOptions {
  outbox: Outbox;
  backendUrl: string;
  timeoutMs: number;
  logger: Logger;
  /** How often to look for due items. */
  pollMs?: number;
  metrics?: Pick<Metrics, 'delivery'>;
}

const BATCH = 20;

export function startOutboxWorker({
  outbox,
  backendUrl,
  timeoutMs,
  logger,
  pollMs = 1000,
  metrics = NO_METRICS,
}: OutboxWorkerOptions) {
  /**
   * True when the backend took the item (or refused it for good with a 4xx other than 408 or
   * 429). If the store cannot record the outcome (the database away), the item stays claimed and
   * comes back when its lease ends: delivered again at worst, with the same Idempotency-Key, never
   * lost.
   */
  async function deliver(item: OutboxItem): Promise<boolean> {
    let status: number;
    try {
      status = (await postSignup(backendUrl, item.request, timeoutMs)).status;
    } catch (err) {
      metrics.delivery('outbox', 'retry');
      if (!(await outbox.failed(item, (err as Error).message))) leaseLost(item);
      return false;
    }
    if (isNotNow(status)) {
      metrics.delivery('outbox', 'retry');
      if (!(await outbox.failed(item, `status ${status}`))) leaseLost(item);
      return false;
    }
    if (!(await outbox.delivered(item.id))) leaseLost(item);
    // Any other 4xx leaves the outbox too, refused: a failure no retry will mend.
    metrics.delivery('outbox', status >= 400 ? 'failed' : 'delivered');
    logger[status >= 400 ? 'warn' : 'info'](
      { outboxId: item.id, status, attempts: item.attempts + 1 },
      'outbox item delivered',
    );
    return true;
  }

  /**
   * This worker outlived its lease (a paused process, a stalled host) and another worker holds the
   * item now: what that worker records stands, this outcome is dropped (server/store/leases.ts).
   */
  function leaseLost(item: OutboxItem): void {
    logger.warn(
      { outboxId: item.id, attempts: item.attempts + 1 },
      'outbox item taken over by another worker: this outcome is not recorded',
    );
  }

  async function runRound(): Promise<boolean> {
    try {
      const items = await outbox.claim(BATCH);
      // Every send settles before the round ends, so stop() waits for all of them.
      const results = await Promise.allSettled(items.map(deliver));
      const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failure)
        logger.error(
          { err: failure.reason },
          'outbox round: the store could not record an outcome',
        );
      return items.length === BATCH && results.every((r) => r.status === 'fulfilled' && r.value);
    } catch (err) {
      // The store itself failed (PostgreSQL away): claimed items come back when their lease ends.
      logger.error({ err }, 'outbox round failed');
      return false;
    }
  }

  return startPoller(runRound, pollMs);
}
