// The operations on webhook endpoints (the CLI's `webhooks …`, and later the console's): each
// change is recorded in the audit log by endpoint id, never by URL, which may carry the
// receiver's own token. A secret is returned to be shown once; it is never logged.
import type { Config } from '../config';
import type { Store } from '../store';
import {
  WEBHOOK_EVENT_TYPES,
  type WebhookEndpoint,
  type WebhookEventType,
} from '../store/webhook-types';
import { endpointUrlProblem } from '../webhooks/send';

type Deps = {
  store: Pick<Store, 'webhooks' | 'audit'>;
  config: Pick<Config, 'webhooksAllowPrivate'>;
};

/** How long the secret before a rotation keeps signing, so receivers can switch without a gap. */
export const ROTATION_GRACE_MS = 24 * 3_600_000;

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
  actor: string,
  endpoint: { url: string; events: WebhookEventType[]; withAddress: boolean },
): Promise<AddWebhookResult> {
  const problem = endpointUrlProblem(endpoint.url, config.webhooksAllowPrivate);
  if (problem) return { kind: 'bad-url', problem };
  const added = await store.webhooks.add(endpoint);
  await store.audit.record({ account: actor, action: `webhooks add ${added.id}`, addresses: 0 });
  return { kind: 'added', ...added };
}

export async function listWebhooks({ store }: Pick<Deps, 'store'>): Promise<WebhookEndpoint[]> {
  return store.webhooks.list();
}

export async function removeWebhook(
  { store }: Pick<Deps, 'store'>,
  actor: string,
  id: string,
): Promise<boolean> {
  if (!(await store.webhooks.remove(id))) return false;
  await store.audit.record({ account: actor, action: `webhooks remove ${id}`, addresses: 0 });
  return true;
}

/** The new secret, or undefined when there is no such endpoint. */
export async function rotateWebhook(
  { store }: Pick<Deps, 'store'>,
  actor: string,
  id: string,
): Promise<string | undefined> {
  const secret = await store.webhooks.rotate(id, ROTATION_GRACE_MS);
  if (secret === undefined) return undefined;
  await store.audit.record({ account: actor, action: `webhooks rotate ${id}`, addresses: 0 });
  return secret;
}

/** Queues a `webhook.test` delivery: its webhook-id, or undefined without such an endpoint. */
export async function testWebhook(
  { store }: Pick<Deps, 'store'>,
  actor: string,
  id: string,
): Promise<string | undefined> {
  const delivery = await store.webhooks.test(id);
  if (delivery === undefined) return undefined;
  await store.audit.record({ account: actor, action: `webhooks test ${id}`, addresses: 0 });
  return delivery;
}
