// The store's contract for outgoing webhooks (index.ts builds it), apart from ../types.ts so the
// webhook rules and the signing code (server/webhooks/) share it without importing the whole store.
import type { Language } from '../../../shared/i18n/languages';
import type { SourceColumns } from '../signups';

/** The events an endpoint can ask for; `webhook.test` goes only where `webhooks test` sends it. */
export const WEBHOOK_EVENT_TYPES = [
  'signup.created',
  'signup.confirmed',
  'signup.left',
  'invitation.sent',
  'subscription.activated',
  'address.undeliverable',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number] | 'webhook.test';

export interface WebhookEndpoint {
  id: string;
  url: string;
  /**
   * What the operator calls it, shown instead of the URL (/privacy shows nothing else of it); null
   * for an endpoint stored before endpoints had names, until it is renamed.
   */
  name: string | null;
  /** The event types it receives; empty: all of them. */
  events: WebhookEventType[];
  /** Its bodies carry the signup's address. */
  withAddress: boolean;
  createdAt: string;
  /** Since when its deliveries have failed with no success since; null while they succeed. */
  failingSince: string | null;
  disabledAt: string | null;
  disabledReason: string | null;
}

/** A signing secret (`whsec_…`) and the time it stops signing (null: the current one). */
export interface WebhookSecret {
  secret: string;
  expiresAt: number | null;
}

export type WebhookDeliveryState = 'pending' | 'delivered' | 'failed';

/** One event for one endpoint: `id` is the webhook-id every attempt sends. */
export interface WebhookDelivery {
  id: string;
  endpointId: string;
  type: WebhookEventType;
  /** The exact body every attempt sends. */
  payload: string;
  createdAt: string;
  state: WebhookDeliveryState;
  attempts: number;
  nextAttemptAt: number;
  lastStatus: number | null;
  lastDurationMs: number | null;
  lastError: string | null;
  deliveredAt: string | null;
}

/** A claimed delivery, with where it goes and what signs it. */
export interface ClaimedWebhook extends WebhookDelivery {
  url: string;
  /** The secrets that sign it now: the current one, and during a rotation the ones before. */
  secrets: string[];
}

/** What an attempt that did not deliver found. */
export interface WebhookFailure {
  /** The receiver's status; absent when none came (refused, timed out, an address not allowed). */
  status?: number;
  durationMs: number;
  error: string;
  /** The receiver's Retry-After, as a delay. */
  retryAfterMs?: number;
  /** This failure disables the endpoint (410 Gone), with this reason. */
  disable?: string;
}

/** What a signup event says of the signup, written in the transaction that changed it. */
export interface WebhookEvent {
  type: WebhookEventType;
  /**
   * The signup in the state the change left it in. Without its address (an erased signup's
   * `signup.left`), no body carries one and no erasure deletes the event.
   */
  signup: {
    id: number;
    state: string;
    language: Language;
    email?: string;
    emailKey?: string;
    /** Where it came from, as stored; `data` carries each field that is known. */
    source?: SourceColumns;
  };
  /** More of what happened, in `data` beside the id, the state and the time. */
  detail?: Record<string, string>;
}

/** What a replay did: deliveries queued again, and whether the endpoint was disabled before. */
export interface WebhookReplay {
  queued: number;
  reenabled: boolean;
}

export interface Webhooks {
  /** A new endpoint and its first secret (shown once by the caller, never logged). */
  add(endpoint: {
    url: string;
    name?: string;
    events: WebhookEventType[];
    withAddress: boolean;
  }): Promise<{ id: string; secret: string }>;
  list(): Promise<WebhookEndpoint[]>;
  get(id: string): Promise<WebhookEndpoint | undefined>;
  /** Gives the endpoint this name; false when there is no such endpoint. */
  rename(id: string, name: string): Promise<boolean>;
  /** Deletes the endpoint and its deliveries; false when there is none. */
  remove(id: string): Promise<boolean>;
  /**
   * A new current secret; the ones before keep signing for at most `graceMs` more (0: they stop
   * at once and are forgotten). Undefined when there is no such endpoint.
   */
  rotate(id: string, graceMs: number): Promise<string | undefined>;
  /** Queues a `webhook.test` delivery for the endpoint; its id, or undefined without one. */
  test(id: string): Promise<string | undefined>;
  /** Due deliveries of enabled endpoints, leased as the outbox's are (leases.ts). */
  claim(limit: number): Promise<ClaimedWebhook[]>;
  delivered(
    delivery: ClaimedWebhook,
    result: { status: number; durationMs: number },
  ): Promise<boolean>;
  /**
   * Schedules the next attempt, gives up after the last, disables the endpoint when due: the
   * state the delivery is left in (pending: retried later; failed: given up), or false when
   * another worker holds it now and this outcome is refused.
   */
  failed(
    delivery: ClaimedWebhook,
    failure: WebhookFailure,
  ): Promise<Exclude<WebhookDeliveryState, 'delivered'> | false>;
  /**
   * Queues again, with their ids and bodies, due now and from their first attempt, the endpoint's
   * given-up deliveries, or with `since` (an ISO time) every one created then or later that is not
   * pending; and re-enables the endpoint. Undefined when there is no such endpoint.
   */
  replay(id: string, since?: string): Promise<WebhookReplay | undefined>;
  /**
   * Deletes at most `limit` delivered and given-up deliveries created before `before` (ISO),
   * and pending ones of disabled endpoints; how many. Other pending ones stay, however old.
   */
  prune(before: string, limit: number): Promise<number>;
  /** How many endpoints are disabled (a 410, or 5 days of failures). */
  disabledCount(): Promise<number>;
  /** An endpoint's deliveries, newest first. */
  deliveries(endpointId: string, limit: number): Promise<WebhookDelivery[]>;
  nextDueAt(): Promise<number | undefined>;
}
