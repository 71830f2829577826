// What an operator scrapes with METRICS_PORT set (Prometheus text, prom-client): requests by route
// kind and status, signups by outcome, delivery attempts of the outbox, the mail queue and
// webhooks, how much each queue holds and how much of it is dead, disabled webhook endpoints,
// confirmation mail due, whether the store is ready, console logins the throttle refused,
// requests from a proxy TRUST_PROXY does not trust, the mail providers' bounces and complaints and
// the requests of theirs refused, when the last scheduled backup succeeded, the build, and Node's
// own process metrics
// (what deploy/prometheus/alerts.yml and deploy/grafana/dashboard.json read). Each
// createMetrics() has a registry of its own, not prom-client's global one, so tests and several
// apps in one process never collide.
//
// Labels take only the fixed values typed below, checked again at run time (a value from
// elsewhere is not recorded): no path, address, key or token can become a label, and the number
// of series stays small whatever the traffic. Without METRICS_PORT, NO_METRICS has the same
// interface and does nothing, so call sites record unconditionally.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { BackupStamp } from './backup-stamp';
import {
  BOUNCE_KINDS,
  BOUNCE_PROVIDERS,
  REFUSAL_REASONS,
  type BounceKind,
  type BounceProvider,
  type RefusalReason,
} from './bounces/notices';
import type { Logger } from './logger';
import { currentBuild, type BuildInfo } from './version';

/**
 * Which entry of the request pipeline's table answered (server/http/request-pipeline.ts). Declared
 * with the other label values, so the access log imports it from here and nothing imports back.
 */
export const ROUTE_KINDS = ['api', 'page', 'app'] as const;
export type RouteKind = (typeof ROUTE_KINDS)[number];

/** Every outcome of a signup (server/waitlist/signup.ts), as signups_total counts it. */
export const SIGNUP_OUTCOMES = ['stored', 'duplicate', 'queued', 'honeypot', 'refused'] as const;
export type SignupMetric = (typeof SIGNUP_OUTCOMES)[number];

/** Which way a signup came: the API (the form with JavaScript, a script) or the plain form. */
export const GUARD_ROUTES = ['api', 'form'] as const;
export type GuardRoute = (typeof GUARD_ROUTES)[number];

/**
 * Why the bot guard (server/guard/) turned a signup away: no proof of work, a proof that does not
 * verify, one spent already, a forged or missing issue time, one too soon, too old or used up
 * (those three get the form back), an address at a refused domain.
 */
export const GUARD_REASONS = [
  'no-proof',
  'bad-proof',
  'spent-proof',
  'forged-field',
  'too-soon',
  'stale-field',
  'used-field',
  'domain',
] as const;
export type GuardReason = (typeof GUARD_REASONS)[number];

/** The two durable queues a background worker delivers from. */
export const DELIVERY_QUEUES = ['outbox', 'mail'] as const;
export type DeliveryQueue = (typeof DELIVERY_QUEUES)[number];

/** Whose attempts delivery_attempts_total counts: the two queues, and webhook deliveries. */
export const ATTEMPT_QUEUES = [...DELIVERY_QUEUES, 'webhook'] as const;
export type AttemptQueue = (typeof ATTEMPT_QUEUES)[number];

/**
 * One attempt to deliver a queued item: taken (`delivered`), to be tried again later (`retry`), or
 * out of the queue without being taken (`failed`: a mail refused for good, an outbox signup the
 * backend answered with a 4xx, a webhook given up or its endpoint disabled). Failures are
 * `result!="delivered"`, so one counter holds both.
 */
export const DELIVERY_RESULTS = ['delivered', 'retry', 'failed'] as const;
export type DeliveryResult = (typeof DELIVERY_RESULTS)[number];

/**
 * What became of an address: confirmed by its link, left by its leave link, erased
 * unconfirmed after CONFIRM_WITHIN_HOURS, or refused for good by the mail server.
 */
export const ADDRESS_EVENTS = ['confirmed', 'left', 'expired', 'undeliverable'] as const;
export type AddressEvent = (typeof ADDRESS_EVENTS)[number];

/**
 * 1 ms to 5 s: a prerendered page answers in about a millisecond, a slow backend call in seconds.
 */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** A stalled database must not hold the whole scrape: past this a pending gauge reads NaN. */
const PENDING_TIMEOUT_MS = 2_000;

export interface Metrics {
  /** One finished (or abandoned) request: which handler answered, the status, how long it took. */
  request(kind: RouteKind, status: number, seconds: number): void;
  signup(outcome: SignupMetric): void;
  /** A signup the bot guard turned away, by route and reason. */
  guarded(route: GuardRoute, reason: GuardReason): void;
  delivery(queue: AttemptQueue, result: DeliveryResult): void;
  address(event: AddressEvent): void;
  /** A provider's notice applied (not a duplicate), by provider and kind. */
  bounce(provider: BounceProvider, kind: BounceKind): void;
  /** A request to /bounces/<provider> refused with 401 (bad signature, stale, …). */
  bounceRefused(provider: BounceProvider, reason: RefusalReason): void;
  /** A console login refused by the throttle (429). */
  loginThrottled(): void;
  /** A request whose X-Forwarded-For was ignored: its peer is not one TRUST_PROXY trusts. */
  untrustedProxy(): void;
  /** The Prometheus text exposition of everything above, pending gauges counted now. */
  text(): Promise<string>;
  readonly contentType: string;
}

/** A count asked of the store on every scrape. */
export type StoreCount = () => number | Promise<number>;

/** How many items each queue holds; asked on every scrape. */
export type PendingCounts = Record<DeliveryQueue, StoreCount>;

interface MetricsOptions {
  pending: PendingCounts;
  /**
   * The rest of what the store is asked on a scrape: dead items of each queue, confirmation mail
   * due, and readiness as /readyz checks it. server/index.ts gives them all; a gauge whose source
   * is not given is not exported.
   */
  dead?: Record<DeliveryQueue, StoreCount>;
  confirmationsDue?: StoreCount;
  /** Webhook endpoints disabled by a 410 or 5 days of failures. */
  webhooksDisabled?: StoreCount;
  ready?: () => Promise<boolean>;
  /** The stamp of the last scheduled backup (server/backup-stamp.ts), read on every scrape. */
  lastBackup?: () => Promise<BackupStamp>;
  /** build_info's labels; this process's own build unless given. */
  build?: BuildInfo;
  /** Told when a pending count fails (the gauge name and the error's class, never its message). */
  logger?: Logger;
  pendingTimeoutMs?: number;
}

const isOneOf = <T extends string>(values: readonly T[], value: unknown): value is T =>
  values.includes(value as T);

const isStatus = (status: number) => Number.isInteger(status) && status >= 100 && status <= 599;

/**
 * A gauge without labels that has no sample at all while its source knows no value. prom-client
 * would show 0, which reads as a time in 1970; no sample is what absent() in an alert looks for.
 */
class OptionalGauge extends Gauge {
  constructor(
    configuration: ConstructorParameters<typeof Gauge>[0],
    private readonly read: () => Promise<number | undefined>,
  ) {
    super(configuration);
  }

  async get() {
    const metric = await super.get();
    const value = await this.read();
    return { ...metric, values: value === undefined ? [] : [{ value, labels: {} }] };
  }
}

export function createMetrics(options: MetricsOptions): Metrics & { registry: Registry } {
  const {
    pending,
    dead,
    confirmationsDue,
    webhooksDisabled,
    ready,
    lastBackup,
    logger,
    pendingTimeoutMs = PENDING_TIMEOUT_MS,
  } = options;
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
    help: 'Time from a request arriving to the end of the answer, by route kind and status.',
    labelNames: ['kind', 'status'],
    buckets: DURATION_BUCKETS,
    registers,
  });
  const signups = new Counter({
    name: 'signups_total',
    help: 'Signups taken, by outcome.',
    labelNames: ['outcome'],
    registers,
  });
  const deliveries = new Counter({
    name: 'delivery_attempts_total',
    help: 'Attempts to deliver a queued item, by queue and result.',
    labelNames: ['queue', 'result'],
    registers,
  });

  const guarded = new Counter({
    name: 'signup_guard_refusals_total',
    help: 'Signups the bot guard turned away (or sent back to the form), by route and reason.',
    labelNames: ['route', 'reason'],
    registers,
  });

  const addresses = new Counter({
    name: 'address_events_total',
    help: 'Addresses confirmed, left, erased unconfirmed or found undeliverable, by event.',
    labelNames: ['event'],
    registers,
  });

  const bounces = new Counter({
    name: 'bounces_total',
    help: 'Bounces and complaints the mail provider reported, by provider and kind (each once).',
    labelNames: ['provider', 'kind'],
    registers,
  });
  const bounceRefusals = new Counter({
    name: 'bounce_refusals_total',
    help: 'Requests to /bounces/<provider> refused with 401, by provider and reason.',
    labelNames: ['provider', 'reason'],
    registers,
  });

  // Every series a dashboard or an alert names exists from the start, at 0, so a rate() or an
  // absent() means something before the first event.
  for (const outcome of SIGNUP_OUTCOMES) signups.inc({ outcome }, 0);
  for (const queue of ATTEMPT_QUEUES)
    for (const result of DELIVERY_RESULTS) deliveries.inc({ queue, result }, 0);
  for (const event of ADDRESS_EVENTS) addresses.inc({ event }, 0);
  for (const provider of BOUNCE_PROVIDERS) {
    for (const kind of BOUNCE_KINDS) bounces.inc({ provider, kind }, 0);
    for (const reason of REFUSAL_REASONS) bounceRefusals.inc({ provider, reason }, 0);
  }
  for (const route of GUARD_ROUTES)
    for (const reason of GUARD_REASONS) guarded.inc({ route, reason }, 0);

  const throttledLogins = new Counter({
    name: 'console_logins_throttled_total',
    help:
      'Console logins refused by the throttle (429): failures past the limit, per account or ' +
      'client.',
    registers,
  });
  throttledLogins.inc(0);

  const untrustedProxies = new Counter({
    name: 'untrusted_proxy_requests_total',
    help: 'Requests whose X-Forwarded-For was ignored: their peer is not one TRUST_PROXY trusts.',
    registers,
  });
  untrustedProxies.inc(0);

  const storeCount = (name: string, help: string, count: StoreCount) =>
    new Gauge({
      name,
      help,
      registers,
      async collect() {
        try {
          const value = await within(pendingTimeoutMs, count);
          this.set(Number.isFinite(value) && value >= 0 ? value : NaN);
        } catch (err) {
          // NaN rather than the last value: a stale count would look like a healthy queue.
          this.set(NaN);
          logger?.warn(
            { gauge: name, error: err instanceof Error ? err.constructor.name : typeof err },
            'could not count pending items for metrics',
          );
        }
      },
    });
  for (const queue of DELIVERY_QUEUES) {
    storeCount(
      `${queue}_pending`,
      queue === 'outbox'
        ? 'Signups waiting in the outbox for the backend.'
        : 'Mail (invitations, confirmations, leave links) queued for the mail server.',
      pending[queue],
    );
    if (dead)
      storeCount(
        `${queue}_dead`,
        queue === 'outbox'
          ? 'Outbox signups set aside past the maximum age (outbox retry <id>).'
          : 'Mail set aside past the maximum age (mail retry <id>).',
        dead[queue],
      );
  }
  if (confirmationsDue)
    storeCount(
      'confirmations_owed',
      'Signups owed a confirmation mail not written yet (CONFIRM_SIGNUPS=on).',
      confirmationsDue,
    );
  if (webhooksDisabled)
    storeCount(
      'webhook_endpoints_disabled',
      'Webhook endpoints disabled by a 410 or 5 days of failures (webhooks replay <id>).',
      webhooksDisabled,
    );

  if (ready)
    new Gauge({
      name: 'store_ready',
      help:
        '1 while the store answers as /readyz asks it (within DATABASE_TIMEOUT_MS), ' +
        '0 otherwise.',
      registers,
      async collect() {
        this.set((await ready().catch(() => false)) ? 1 : 0);
      },
    });

  if (lastBackup)
    new OptionalGauge(
      {
        name: 'backup_last_success_timestamp_seconds',
        help: 'When the last scheduled backup succeeded (Unix time); no sample while none has.',
        registers,
      },
      async () => {
        const stamp = await lastBackup();
        if (stamp.kind === 'unreadable')
          logger?.warn({ reason: stamp.reason }, 'the backup stamp in DATA_DIR is not believed');
        return stamp.kind === 'at' ? stamp.seconds : undefined;
      },
    );

  // The usual Prometheus idiom: a constant 1 whose labels say which build answers.
  const build = options.build ?? currentBuild();
  const buildInfo = new Gauge({
    name: 'build_info',
    help: 'Always 1: the version and commit this process runs.',
    labelNames: ['version', 'commit'],
    registers,
  });
  buildInfo.set({ version: build.version, commit: build.commit }, 1);

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
    guarded(route, reason) {
      if (isOneOf(GUARD_ROUTES, route) && isOneOf(GUARD_REASONS, reason))
        guarded.inc({ route, reason });
    },
    delivery(queue, result) {
      if (isOneOf(ATTEMPT_QUEUES, queue) && isOneOf(DELIVERY_RESULTS, result))
        deliveries.inc({ queue, result });
    },
    address(event) {
      if (isOneOf(ADDRESS_EVENTS, event)) addresses.inc({ event });
    },
    bounce(provider, kind) {
      if (isOneOf(BOUNCE_PROVIDERS, provider) && isOneOf(BOUNCE_KINDS, kind))
        bounces.inc({ provider, kind });
    },
    bounceRefused(provider, reason) {
      if (isOneOf(BOUNCE_PROVIDERS, provider) && isOneOf(REFUSAL_REASONS, reason))
        bounceRefusals.inc({ provider, reason });
    },
    loginThrottled() {
      throttledLogins.inc();
    },
    untrustedProxy() {
      untrustedProxies.inc();
    },
    text: () => registry.metrics(),
  };
}

/** Without METRICS_PORT: the same calls, doing nothing. */
export const NO_METRICS: Metrics = Object.freeze({
  request() {},
  signup() {},
  guarded() {},
  delivery() {},
  address() {},
  bounce() {},
  bounceRefused() {},
  loginThrottled() {},
  untrustedProxy() {},
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
