// The queue bounds and leases both engines apply, with the defaults used where no setting says
// otherwise (README, "Configuration"). Apart from the engines so opening PostgreSQL never loads
// SQLite.
import { leaseFor } from './leases';

/**
 * Queue bounds, from the settings (OUTBOX_MAX_ITEMS, MAIL_QUEUE_MAX_ITEMS, QUEUE_MAX_AGE_HOURS).
 */
export interface QueueLimits {
  outboxMaxItems: number;
  mailMaxItems: number;
  maxAgeMs: number;
  /**
   * How long a claimed outbox item stays with its worker: longer than any delivery can take
   * (UPSTREAM_TIMEOUT_MS bounds each one; leases.ts), short enough that a replica killed
   * mid-delivery holds its items back only briefly.
   */
  outboxLeaseMs: number;
  /** The same for a claimed message, from the mail server's send timeout (SMTP_TIMEOUT_MS). */
  mailLeaseMs: number;
}

/** UPSTREAM_TIMEOUT_MS and the mail server's send timeout when no setting names them. */
export const DEFAULT_BACKEND_TIMEOUT_MS = 10_000;
export const DEFAULT_SMTP_TIMEOUT_MS = 30_000;

export const DEFAULT_QUEUE_LIMITS: QueueLimits = {
  outboxMaxItems: 100_000,
  mailMaxItems: 100_000,
  maxAgeMs: 7 * 24 * 3_600_000,
  outboxLeaseMs: leaseFor(DEFAULT_BACKEND_TIMEOUT_MS),
  mailLeaseMs: leaseFor(DEFAULT_SMTP_TIMEOUT_MS),
};

/** The given bounds over the defaults; an undefined one keeps its default. */
export function queueLimits(given: Partial<QueueLimits> = {}): QueueLimits {
  const set = Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined));
  return { ...DEFAULT_QUEUE_LIMITS, ...set };
}
