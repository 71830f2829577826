// The operations on webhook endpoints (the CLI's `webhooks …` and the console's page): each
// change is recorded in the audit log by endpoint id, name and the scheme and host of its URL,
// never by its path or query, which may carry the receiver's own token. A secret is returned to
// be shown once; it is never logged.
import type { Config } from '../config';
import type { Store } from '../store';
import {
  WEBHOOK_EVENT_TYPES,
  type WebhookEndpoint,
  type WebhookEventType,
  type WebhookReplay,
} from '../store/webhooks';
import { endpointUrlProblem } from '../webhooks/send';
import { endpointOrigin } from '../webhooks/shown';

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

/** How the audit log names an endpoint: its id, its name when it has one, its scheme and host. */
const auditName = ({ id, name, url }: Pick<WebhookEndpoint, 'id' | 'name' | 'url'>) =>
  [id, ...(name === null ? [] : [JSON.stringify(name)]), endpointOrigin(url)].join(' ');

/** The audit name of the endpoint `id`; undefined when there is none. */
async function auditNameOf(store: Deps['store'], id: string): Promise<string | undefined> {
  const endpoint = await store.webhooks.get(id);
  return endpoint && auditName(endpoint);
}

/** The longest name, in characters: room for "Sales CRM (HubSpot, EU)", short in a sentence. */
export const WEBHOOK_NAME_MAX = 60;

/**
 * Why `name` cannot name an endpoint; undefined when it can. /privacy, the console and the audit
 * log show it, so it is printable: no control or format character that could hide or reorder
 * what a page says around it.
 */
export function webhookNameProblem(name: string): string | undefined {
  const length = [...name.trim()].length;
  if (length === 0 || length > WEBHOOK_NAME_MAX)
    return `a name is 1 to ${WEBHOOK_NAME_MAX} characters`;
  if (/[\p{C}\p{Zl}\p{Zp}]/u.test(name)) return 'a name is printable characters only';
  return undefined;
}

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
  | { kind: 'added'; id: string; secret: string }
  | { kind: 'bad-url'; problem: string }
  | { kind: 'bad-name'; problem: string }
  /** It would receive addresses, and /privacy names where they go by the endpoint's name. */
  | { kind: 'needs-name' };

export async function addWebhook(
  { store, config }: Deps,
  actor: Actor,
  endpoint: { url: string; name?: string; events: WebhookEventType[]; withAddress: boolean },
): Promise<AddWebhookResult> {
  const name = endpoint.name?.trim();
  if (name === undefined && endpoint.withAddress) return { kind: 'needs-name' };
  const badName = name === undefined ? undefined : webhookNameProblem(name);
  if (badName) return { kind: 'bad-name', problem: badName };
  const problem = endpointUrlProblem(endpoint.url, config.webhooksAllowPrivate);
  if (problem) return { kind: 'bad-url', problem };
  const added = await store.webhooks.add({ ...endpoint, name });
  const named = auditName({ id: added.id, name: name ?? null, url: endpoint.url });
  await record(store, actor, `webhooks add ${named}`);
  return { kind: 'added', ...added };
}

export type RenameWebhookResult =
  { kind: 'renamed' } | { kind: 'bad-name'; problem: string } | { kind: 'unknown' };

export async function renameWebhook(
  { store }: Pick<Deps, 'store'>,
  actor: Actor,
  id: string,
  newName: string,
): Promise<RenameWebhookResult> {
  const name = newName.trim();
  const problem = webhookNameProblem(name);
  if (problem) return { kind: 'bad-name', problem };
  const endpoint = await store.webhooks.get(id);
  if (!endpoint || !(await store.webhooks.rename(id, name))) return { kind: 'unknown' };
  await record(store, actor, `webhooks rename ${auditName({ ...endpoint, name })}`);
  return { kind: 'renamed' };
}

export async function listWebhooks({ store }: Pick<Deps, 'store'>): Promise<WebhookEndpoint[]> {
  return store.webhooks.list();
}

export async function removeWebhook(
  { store }: Pick<Deps, 'store'>,
  actor: Actor,
  id: string,
): Promise<boolean> {
  const named = await auditNameOf(store, id);
  if (named === undefined || !(await store.webhooks.remove(id))) return false;
  await record(store, actor, `webhooks remove ${named}`);
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
  const named = await auditNameOf(store, id);
  const secret = named === undefined ? undefined : await store.webhooks.rotate(id, graceMs);
  if (secret === undefined) return undefined;
  const old = graceMs === 0 ? 'revoked' : `signs for ${graceText(graceMs)} more`;
  await record(store, actor, `webhooks rotate ${named} (the old secret ${old})`);
  return secret;
}

/** Queues a `webhook.test` delivery: its webhook-id, or undefined without such an endpoint. */
export async function testWebhook(
  { store }: Pick<Deps, 'store'>,
  actor: Actor,
  id: string,
): Promise<string | undefined> {
  const named = await auditNameOf(store, id);
  const delivery = named === undefined ? undefined : await store.webhooks.test(id);
  if (delivery === undefined) return undefined;
  await record(store, actor, `webhooks test ${named}`);
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
  const named = await auditNameOf(store, id);
  const replayed = named === undefined ? undefined : await store.webhooks.replay(id, since);
  if (replayed === undefined) return undefined;
  await record(store, actor, `webhooks replay ${named}`);
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
