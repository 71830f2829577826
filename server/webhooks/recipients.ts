// Where addresses go: the hosts of the webhook endpoints added --with-address, which /privacy names
// (client/pages/privacy-notice.ts). Endpoints are added and removed by the CLI, another process and
// maybe another replica, so the site learns of them only through the store: the hosts are kept
// here and read again once older than `maxAgeMs`, on the next page that asks (no timer, so nothing
// keeps a process alive), never once per request.
import type { Logger } from '../logger';
import type { WebhookEndpoint, Webhooks } from '../store/webhook-types';

/** Pages follow an endpoint added or removed from the CLI within this long. */
export const RECIPIENTS_MAX_AGE_MS = 5_000;

export interface AddressRecipients {
  /** The hosts, read again when older than the maximum age; in the order they were added. */
  current(): Promise<readonly string[]>;
}

/**
 * Hosts only: an endpoint's path or query can carry the receiver's token. Disabled endpoints
 * count, as they are still configured to receive addresses and a replay enables them again.
 */
export function recipientHosts(endpoints: readonly WebhookEndpoint[]): string[] {
  const hosts = endpoints
    .filter((endpoint) => endpoint.withAddress)
    .map((endpoint) => URL.parse(endpoint.url)?.hostname)
    .filter((host): host is string => !!host);
  return [...new Set(hosts)];
}

export function addressRecipients({
  webhooks,
  logger,
  maxAgeMs = RECIPIENTS_MAX_AGE_MS,
  now = Date.now,
}: {
  webhooks: Pick<Webhooks, 'list'>;
  logger: Logger;
  maxAgeMs?: number;
  now?: () => number;
}): AddressRecipients {
  let hosts: readonly string[] = [];
  let readAt: number | undefined;
  let reading: Promise<readonly string[]> | undefined;
  let failing = false;

  async function read(): Promise<readonly string[]> {
    try {
      hosts = recipientHosts(await webhooks.list());
      if (failing) logger.info('webhook endpoints read again: /privacy names their hosts');
      failing = false;
    } catch (err) {
      // Pages go on with the hosts known before; one line per outage, not one per page.
      if (!failing)
        logger.error({ err }, 'webhook endpoints unreadable: /privacy keeps the hosts it knew');
      failing = true;
    }
    // A failed read waits its turn like a good one, so a store that is down is not asked per page.
    readAt = now();
    return hosts;
  }

  return {
    current() {
      if (readAt !== undefined && now() - readAt < maxAgeMs) return Promise.resolve(hosts);
      // One read at a time, shared by every page that asks meanwhile.
      reading ??= read().finally(() => (reading = undefined));
      return reading;
    },
  };
}
