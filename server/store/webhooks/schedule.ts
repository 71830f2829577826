// When a webhook delivery is tried again, and when its endpoint is given up on (decision 0023):
// Standard Webhooks' retry schedule, a receiver's Retry-After honoured within it, and five days
// of failures with no success to disable an endpoint.

/** The wait before retry n (1-based): Standard Webhooks' schedule; past its end, given up. */
export const RETRY_SCHEDULE_MS = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  14 * 3_600_000,
  20 * 3_600_000,
  24 * 3_600_000,
] as const;

/** An endpoint whose deliveries have failed this long with no success is disabled. */
export const FAILING_FOR_MS = 5 * 24 * 3_600_000;

/** Each attempt ends within this (server/webhooks/send.ts). */
export const WEBHOOK_TIMEOUT_MS = 15_000;

/** A Retry-After longer than the schedule's longest wait is not waited for in full. */
const RETRY_AFTER_CAP_MS = 24 * 3_600_000;

/** The wait before retry `attempts` (1-based), ±10 % so failed deliveries do not retry in step. */
export function webhookRetryMs(attempts: number): number | undefined {
  const base = RETRY_SCHEDULE_MS[attempts - 1];
  return base === undefined ? undefined : Math.round(base * (0.9 + 0.2 * Math.random()));
}

/**
 * The wait before retry `attempts`: the schedule's, or the receiver's Retry-After when longer
 * (up to a cap). Undefined once the schedule has run out: the delivery is given up.
 */
export function retryWait(attempts: number, retryAfterMs = 0): number | undefined {
  const scheduled = webhookRetryMs(attempts);
  return scheduled === undefined
    ? undefined
    : Math.max(scheduled, Math.min(retryAfterMs, RETRY_AFTER_CAP_MS));
}
