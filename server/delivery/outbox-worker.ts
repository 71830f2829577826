// Background delivery of the outbox: claims due items (a lease, so another replica's worker never
// takes the same one), re-sends each exactly as its first attempt went (postSignup: same path,
// fields, forwarded headers and Idempotency-Key), and removes it once the backend answers
// anything but a 5xx. Failures back off (store/outbox.ts). A full batch is followed at once by
// the next, unless the backend failed: then the rest waits for its own backoff. stop() waits for
// the sends in flight.
import type { Logger } from '../logger';
import { NO_METRICS, type Metrics } from '../metrics';
import type { Outbox, OutboxItem } from '../store/types';
import { postSignup } from './backend-client';
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

export function startOutboxWorker({ outbox, backendUrl, timeoutMs, logger, pollMs = 1000, metrics = NO_METRICS }: OutboxWorkerOptions) {
  /** True when the backend took the item (or refused it for good with a 4xx). */
  async function deliver(item: OutboxItem): Promise<boolean> {
    try {
      const answer = await postSignup(backendUrl, item.request, timeoutMs);
      if (answer.status >= 500) {
        metrics.delivery('outbox', 'retry');
        await outbox.failed(item, `status ${answer.status}`);
        return false;
      }
      await outbox.delivered(item.id);
      // A 4xx leaves the outbox too, refused: a failure no retry will mend.
      metrics.delivery('outbox', answer.status >= 400 ? 'failed' : 'delivered');
      const level = answer.status >= 400 ? 'warn' : 'info';
      logger[level]({ outboxId: item.id, status: answer.status, attempts: item.attempts + 1 }, 'outbox item delivered');
      return true;
    } catch (err) {
      metrics.delivery('outbox', 'retry');
      await outbox.failed(item, (err as Error).message);
      return false;
    }
  }

  async function runRound(): Promise<boolean> {
    try {
      const items = await outbox.claim(BATCH);
      const results = await Promise.all(items.map(deliver));
      return items.length === BATCH && results.every(Boolean);
    } catch (err) {
      // The store itself failed (PostgreSQL away): claimed items come back when their lease ends.
      logger.error({ err }, 'outbox round failed');
      return false;
    }
  }

  return startPoller(runRound, pollMs);
}
