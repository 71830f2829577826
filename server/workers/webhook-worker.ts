// Background delivery of webhooks: claims due deliveries (a fenced lease, so no other worker, on
// this replica or another, sends the same one meanwhile), signs each with its endpoint's secrets
// and posts it (webhooks/send.ts). A 2xx delivers it; anything else, or no answer, fails the
// attempt and the store schedules the next (store/webhooks/); a 410 disables the endpoint.
// Delivery is at least once: a worker killed after the receiver answered leaves the delivery
// to be sent again, with the same webhook-id, once its lease ends. stop() waits for the sends in
// flight.
import type { Logger } from '../logger';
import { NO_METRICS, type Metrics } from '../metrics';
import {
  WEBHOOK_TIMEOUT_MS,
  type ClaimedWebhook,
  type SignupEvents,
  type Webhooks,
} from '../store/webhooks';
import type { ResolveAll } from '../webhooks/address-guard';
import { sendWebhook } from '../webhooks/send';
import { webhookHeaders } from '../webhooks/signing';
import { startPoller, wakeLater } from './poller';

interface WebhookWorkerOptions {
  webhooks: Webhooks;
  /** The `signup.created` events signups are due, written at the start of each round. */
  signupEvents?: SignupEvents;
  allowPrivate: boolean;
  logger: Logger;
  /** Counts each attempt's result; nothing is counted when not given. */
  metrics?: Pick<Metrics, 'delivery'>;
  /** How often to look for due deliveries. */
  pollMs?: number;
  timeoutMs?: number;
  resolve?: ResolveAll;
  now?: () => number;
}

const BATCH = 20;

export function startWebhookWorker({
  webhooks,
  signupEvents,
  allowPrivate,
  logger,
  metrics = NO_METRICS,
  pollMs = 1000,
  timeoutMs = WEBHOOK_TIMEOUT_MS,
  resolve,
  now = Date.now,
}: WebhookWorkerOptions) {
  async function deliver(delivery: ClaimedWebhook): Promise<boolean> {
    const headers = webhookHeaders(delivery.secrets, delivery.id, delivery.payload, now());
    const started = performance.now();
    let recorded: boolean | 'pending' | 'failed';
    let delivered = false;
    try {
      const answer = await sendWebhook(delivery.url, headers, delivery.payload, {
        timeoutMs,
        allowPrivate,
        resolve,
      });
      delivered = answer.status >= 200 && answer.status < 300;
      recorded = delivered
        ? await webhooks.delivered(delivery, answer)
        : await webhooks.failed(delivery, {
            ...answer,
            error: `status ${answer.status}`,
            disable: answer.status === 410 ? 'the receiver answered 410 Gone' : undefined,
          });
    } catch (err) {
      recorded = await webhooks.failed(delivery, {
        durationMs: performance.now() - started,
        error: (err as Error).message,
      });
    }
    // The URL may carry a token of the receiver's: only ids go to the log.
    const fields = { webhookId: delivery.id, endpoint: delivery.endpointId };
    if (!recorded) {
      logger.warn(fields, 'webhook taken over by another worker: this outcome is not recorded');
      return delivered;
    }
    metrics.delivery(
      'webhook',
      delivered ? 'delivered' : recorded === 'failed' ? 'failed' : 'retry',
    );
    if (!delivered)
      logger.info({ ...fields, attempts: delivery.attempts + 1 }, 'webhook attempt failed');
    return delivered;
  }

  async function runRound(): Promise<boolean> {
    try {
      // The signup.created events new signups are due first, so this round sends them.
      const written = signupEvents ? await signupEvents.writeDueCreations(BATCH) : 0;
      const deliveries = await webhooks.claim(BATCH);
      const results = await Promise.allSettled(deliveries.map(deliver));
      const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failure)
        logger.error(
          { err: failure.reason },
          'webhook round: the store could not record an outcome',
        );
      return written === BATCH || deliveries.length === BATCH;
    } catch (err) {
      // The store itself failed (PostgreSQL away): claimed deliveries come back when their lease
      // ends.
      logger.error({ err }, 'webhook round failed');
      return false;
    }
  }

  return wakeLater(startPoller(runRound, pollMs));
}
