// What an operator scrapes with METRICS_PORT set (Prometheus text, prom-client): requests by route
// kind and status, signups by outcome, delivery attempts of the outbox and the mail queue, how
// much each queue holds, and Node's own process metrics. Each createMetrics() has a registry of
// its own, not prom-client's global one, so tests and several apps in one process never collide.
//
// Labels take only the fixed values typed below, checked again at run time (a value from
// elsewhere is not recorded): no path, address, key or token can become a label, and the number
// of series stays small whatever the traffic. Without METRICS_PORT, NO_METRICS has the same
// interface and does nothing, so call sites record unconditionally.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Logger } from './logger';

/**
 * Which entry of the front door's table answered (server/http/front-door.ts). Declared with the
 * other label values, so the access log imports it from here and nothing imports back.
 */
export const ROUTE_KINDS = ['api', 'page', 'app'] as const;
export type RouteKind = (typeof ROUTE_KINDS)[number];

/** Every outcome of a signup (server/waitlist/signup.ts), as signups_total counts it. */
export const SIGNUP_OUTCOMES = ['stored', 'duplicate', 'queued', 'honeypot', 'refused'] as const;
export type SignupMetric = (typeof SIGNUP_OUTCOMES)[number];

/** The two durable queues a background worker delivers from. */
export const DELIVERY_QUEUES = ['outbox', 'mail'] as const;
export type DeliveryQueue = (typeof DELIVERY_QUEUES)[number];

/**
 * One attempt to deliver a queued item: taken (`delivered`), to be tried again later (`retry`), or
 * out of the queue without being taken (`failed`: a mail refused for good, an outbox signup the
 * backend answered with a 4xx). Failures are `result!="delivered"`, so one counter holds both.
 */
export const DELIVERY_RESULTS = ['delivered', 'retry', 'failed'] as const;
export type DeliveryResult = (typeof DELIVERY_RESULTS)[number];

/**
 * What became of an address (issue 23): confirmed by its link, left by its leave link, erased
 * unconfirmed after CONFIRM_WITHIN_HOURS, or refused for good by the mail server.
 */
export const ADDRESS_EVENTS = ['confirmed', 'left', 'expired', 'undeliverable'] as const;
export type AddressEvent = (typeof ADDRESS_EVENTS)[number];

/** 1 ms to 5 s: a prerendered page answers in about a millisecond, a slow backend call in seconds. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** A stalled database must not hold the whole scrape: past this a pending gauge reads NaN. */
const PENDING_TIMEOUT_MS = 2_000;

export interface Metrics {
  /** One finished (or abandoned) request: which door answered, the status, how long it took. */
  request(kind: RouteKind, status: number, seconds: number): void;
  signup(outcome: SignupMetric): void;
  delivery(queue: DeliveryQueue, result: DeliveryResult): void;
  address(event: AddressEvent): void;
  /** The Prometheus text exposition of everything above, pending gauges counted now. */
  text(): Promise<string>;
  readonly contentType: string;
}

/** How many items each queue holds; asked on every scrape. */
export type PendingCounts = Record<DeliveryQueue, () => number | Promise<number>>;

interface MetricsOptions {
  pending: PendingCounts;
  /** Told when a pending count fails (the gauge name and the error's class, never its message). */
  logger?: Logger;
  pendingTimeoutMs?: number;
}

const isOneOf = <T extends string>(values: readonly T[], value: unknown): value is T => values.includes(value as T);

const isStatus = (status: number) => Number.isInteger(status) && status >= 100 && status <= 599;

export function createMetrics({ pending, logger, pendingTimeoutMs = PENDING_TIMEOUT_MS }: MetricsOptions): Metrics & { registry: Registry } {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });

  const requests = new Counter({
    name: 'http_requests_total',
    help: 'Requests answered, by route kind and status.',
    labelNames: ['kind', 'status'],
    registers,
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from the front door to the end of the answer, by route kind and status.',
    labelNames: ['kind', 'status'],
    buckets: DURATION_BUCKETS,
    registers,
  });
  const signups = new Counter({ name: 'signups_total', help: 'Signups taken, by outcome.', labelNames: ['outcome'], registers });
  const deliveries = new Counter({
    name: 'delivery_attempts_total',
    help: 'Attempts to deliver a queued item, by queue and result.',
    labelNames: ['queue', 'result'],
    registers,
  });

  const addresses = new Counter({
    name: 'address_events_total',
    help: 'Addresses confirmed, left, erased unconfirmed or found undeliverable, by event.',
    labelNames: ['event'],
    registers,
  });

  // Every series a dashboard or an alert names exists from the start, at 0, so a rate() or an
  // absent() means something before the first event.
  for (const outcome of SIGNUP_OUTCOMES) signups.inc({ outcome }, 0);
  for (const queue of DELIVERY_QUEUES) for (const result of DELIVERY_RESULTS) deliveries.inc({ queue, result }, 0);
  for (const event of ADDRESS_EVENTS) addresses.inc({ event }, 0);

  for (const queue of DELIVERY_QUEUES) {
    const name = `${queue}_pending`;
    new Gauge({
      name,
      help:
        queue === 'outbox' ? 'Signups waiting in the outbox for the backend.' : 'Mail (invitations, confirmations, leave links) queued for the mail server.',
      registers,
      async collect() {
        try {
          const count = await within(pendingTimeoutMs, pending[queue]);
          this.set(Number.isFinite(count) && count >= 0 ? count : NaN);
        } catch (err) {
          // NaN rather than the last value: a stale count would look like a healthy queue.
          this.set(NaN);
          logger?.warn({ gauge: name, error: err instanceof Error ? err.constructor.name : typeof err }, 'could not count pending items for metrics');
        }
      },
    });
  }

  return {
    registry,
    contentType: registry.contentType,
    request(kind, status, seconds) {
      if (!isOneOf(ROUTE_KINDS, kind) || !isStatus(status)) return;
      const labels = { kind, status: String(status) };
      requests.inc(labels);
      // Date.now() can step back with the clock; such a request counts but is not timed.
      if (Number.isFinite(seconds) && seconds >= 0) duration.observe(labels, seconds);
    },
    signup(outcome) {
      if (isOneOf(SIGNUP_OUTCOMES, outcome)) signups.inc({ outcome });
    },
    delivery(queue, result) {
      if (isOneOf(DELIVERY_QUEUES, queue) && isOneOf(DELIVERY_RESULTS, result)) deliveries.inc({ queue, result });
    },
    address(event) {
      if (isOneOf(ADDRESS_EVENTS, event)) addresses.inc({ event });
    },
    text: () => registry.metrics(),
  };
}

/** Without METRICS_PORT: the same calls, doing nothing. */
export const NO_METRICS: Metrics = Object.freeze({
  request() {},
  signup() {},
  delivery() {},
  address() {},
  text: async () => '',
  contentType: Registry.PROMETHEUS_CONTENT_TYPE,
});

class PendingTimeoutError extends Error {}

/** The count, or a rejection once `ms` have passed (a synchronous throw rejects too). */
function within(ms: number, count: () => number | Promise<number>): Promise<number> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new PendingTimeoutError(`no count within ${ms} ms`)), ms);
  });
  return Promise.race([Promise.resolve().then(count), timeout]).finally(() => clearTimeout(timer));
}
