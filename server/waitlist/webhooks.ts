// The operations on webhook endpoints (the CLI's `webhooks …` and the console's page): each
// change is recorded in the audit log by endpoint id, never by URL, which may carry the
// receiver's own token. A secret is returned to be shown once; it is never logged.
import type { Config } from '../config';
import type { Store } from '../store';
import {
  WEBHOOK_EVENT_TYPES,
  type WebhookEndpoint,
  type WebhookEventType,
  type WebhookReplay,
} from '../store/webhook-types';
import { endpointUrlProblem } from '../webhooks/send';

type Deps = {
  store: Pick<Store, 'webhooks' | 'audit'>;
  config: Pick<Config, 'webhooksAllowPrivate'>;
};

/** Who acted, as the audit log names them: `cli`, or a console account and its client address. */
export interface Actor {
  account: string;
  client?: string;
}

const record = (store: Deps['store'], actor: Actor, action: string) =>
  store.audit.record({ ...actor, action, addresses: 0 });

/** How long the secret before a rotation keeps signing, so receivers can switch without a gap. */
export const ROTATION_GRACE_MS = 24 * 3_600_000;

/** The longest a rotation lets the old secret sign on: a leaked one would last as long. */
export const ROTATION_GRACE_MAX_MS = 7 * 24 * 3_600_000;

const UNITS = [
  ['day', 24 * 3_600_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1_000],
] as const;

/** A grace as a sentence says it: '24 hours', '90 minutes'. */
export function graceText(ms: number): string {
  const [unit, size] = UNITS.find(([, size]) => ms % size === 0) ?? ['millisecond', 1];
  const count = ms / size;
  return `${count} ${unit}${count === 1 ? '' : 's'}`;
}

/** The event types of a comma-separated list; the unknown ones in `unknown`. */
export function eventTypes(list: string): { events: WebhookEventType[]; unknown: string[] } {
  const words = list
    .split(',')
    .map((word) => word.trim())
    .filter((word) => word !== '');
  const known = new Set<string>(WEBHOOK_EVENT_TYPES);
  return {
    events: [...new Set(words.filter((word) => known.has(word)))] as WebhookEventType[],
    unknown: words.filter((word) => !known.has(word)),
  };
}

export type AddWebhookResult =
  { kind: 'added'; id: string; secret: string } | { kind: 'bad-url'; problem: string };

export async function addWebhook(
  { store, config }: Deps,
  actor: Actor,
  endpoint: { url: string; events: WebhookEventType[]; withAddress: boolean },
): Promise<AddWebhookResult> {
  const problem = endpointUrlProblem(endpoint.url, config.webhooksAllowPrivate);
  if (problem) return { kind: 'bad-url', problem };
  const added = await store.webhooks.add(endpoint);
  await record(store, actor, `webhooks add ${added.id}`);
  return { kind: 'added', ...added };
}

export async function listWebhooks({ store }: Pick<Deps, 'store'>): Promise<WebhookEndpoint[]> {
  return store.webhooks.list();
}

export async function removeWebhook(
  { store }: Pick<Deps, 'store'>,
  actor: Actor,
  id: string,
): Promise<boolean> {
  if (!(await store.webhooks.remove(id))) return false;
  await record(store, actor, `webhooks remove ${id}`);
  return true;
}

/**
 * A new secret; the ones before sign for `graceMs` more, or stop at once with 0 (a leaked secret).
 * Undefined when there is no such endpoint.
 */
export async function rotateWebhook(
  { store }: Pick<Deps, 'store'>,
  actor: Actor,
  id: string,
  graceMs = ROTATION_GRACE_MS,
): Promise<string | undefined> {
  const secret = await store.webhooks.rotate(id, graceMs);
  if (secret === undefined) return undefined;
  const old = graceMs === 0 ? 'revoked' : `signs for ${graceText(graceMs)} more`;
  await record(store, actor, `webhooks rotate ${id} (the old secret ${old})`);
  return secret;
}

/** Queues a `webhook.test` delivery: its webhook-id, or undefined without such an endpoint. */
export async function testWebhook(
  { store }: Pick<Deps, 'store'>,
  actor: Actor,
  id: string,
): Promise<string | undefined> {
  const delivery = await store.webhooks.test(id);
  if (delivery === undefined) return undefined;
  await record(store, actor, `webhooks test ${id}`);
  return delivery;
}

/**
 * Queues the endpoint's given-up deliveries again (with `since`: every one created then or later
 * that is not pending) and re-enables it: how an operator brings an endpoint back once its
 * receiver is fixed. Undefined without such an endpoint.
 */
export async function replayWebhook(
  { store }: Pick<Deps, 'store'>,
  actor: Actor,
  id: string,
  since?: string,
): Promise<WebhookReplay | undefined> {
  const replayed = await store.webhooks.replay(id, since);
  if (replayed === undefined) return undefined;
  await record(store, actor, `webhooks replay ${id}`);
  return replayed;
}

/** How long delivered and given-up deliveries are kept: the console's history shows a month. */
export const DELIVERY_HISTORY_DAYS = 30;

/** Deliveries one prune deletes at most; the next round takes the rest. */
export const PRUNE_BATCH = 1_000;

/** Deletes finished deliveries past DELIVERY_HISTORY_DAYS; how many (at most PRUNE_BATCH). */
export async function pruneWebhookDeliveries(
  { store }: { store: Pick<Store, 'webhooks'> },
  now: number,
): Promise<number> {
  const before = new Date(now - DELIVERY_HISTORY_DAYS * 24 * 3_600_000).toISOString();
  return store.webhooks.prune(before, PRUNE_BATCH);
}
