// Background delivery of the outbox: re-sends each queued signup exactly as its first attempt
// went (postSignup: same path, fields, forwarded headers and Idempotency-Key), one send in flight
// per item, and removes it once the backend answers anything but a 5xx. Failures back off (see
// store/outbox.ts). stop() waits for sends in flight.
import type { Logger } from '../logger';
import type { Outbox, OutboxItem } from '../store/outbox';
import { postSignup } from './backend-client';
import { startPoller } from './poller';

interface OutboxWorkerOptions {
  outbox: Outbox;
  backendUrl: string;
  timeoutMs: number;
  logger: Logger;
  /** How often to look for due items. */
  pollMs?: number;
}

export function startOutboxWorker({ outbox, backendUrl, timeoutMs, logger, pollMs = 1000 }: OutboxWorkerOptions) {
  const inFlight = new Set<number>();

  async function deliver(item: OutboxItem): Promise<void> {
    inFlight.add(item.id);
    try {
      const answer = await postSignup(backendUrl, item.request, timeoutMs);
      if (answer.status >= 500) {
        outbox.failed(item, `status ${answer.status}`);
        return;
      }
      outbox.delivered(item.id);
      const level = answer.status >= 400 ? 'warn' : 'info';
      logger[level]({ outboxId: item.id, status: answer.status, attempts: item.attempts + 1 }, 'outbox item delivered');
    } catch (err) {
      outbox.failed(item, (err as Error).message);
    } finally {
      inFlight.delete(item.id);
    }
  }

  async function runRound(): Promise<void> {
    try {
      const items = outbox.due().filter((item) => !inFlight.has(item.id));
      await Promise.all(items.map(deliver));
    } catch (err) {
      logger.error({ err }, 'outbox round failed');
    }
  }

  return startPoller(runRound, pollMs);
}
