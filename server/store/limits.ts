// The queue bounds both engines apply, with the defaults used where no setting says otherwise
// (README, "Configuration"). Apart from the engines so opening PostgreSQL never loads SQLite.
import { outboxLeaseFor } from './outbox';
import type { QueueLimits } from './types';

export const DEFAULT_QUEUE_LIMITS: QueueLimits = {
  outboxMaxItems: 100_000,
  mailMaxItems: 100_000,
  maxAgeMs: 7 * 24 * 3_600_000,
  outboxLeaseMs: outboxLeaseFor(10_000),
};

/** The given bounds over the defaults; an undefined one keeps its default. */
export function queueLimits(given: Partial<QueueLimits> = {}): QueueLimits {
  const set = Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined));
  return { ...DEFAULT_QUEUE_LIMITS, ...set };
}
