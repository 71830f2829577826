// Where addresses go: the names of the webhook endpoints added --with-address, and how many have
// none, which /privacy lists in its language (client/pages/privacy-notice.ts). Endpoints are
// added, renamed and removed by the CLI, another process and maybe another replica, so the site
// learns of them only through the store: the recipients are kept here and read again once older
// than `maxAgeMs`, on the next page that asks (no timer, so nothing keeps a process alive), never
// once per request.
import type { Logger } from '../logger';
import type { WebhookEndpoint, Webhooks } from '../store/webhooks';
import { NO_RECIPIENTS, type AddressRecipients } from '../../shared/public-config';
import privacy from '../../shared/messages/en/privacy';

/** Pages follow an endpoint added, renamed or removed from the CLI within this long. */
export const RECIPIENTS_MAX_AGE_MS = 5_000;

/**
 * What the English /privacy calls an endpoint stored before endpoints had names, until an operator
 * names it (the CLI and the console quote it): nothing of its URL, whose host can be as much the
 * receiver's credential as its path.
 */
export const UNNAMED_RECIPIENT = privacy.unnamed_(1, false);

export interface RecipientsReader {
  /** The recipients, read again when older than the maximum age. */
  current(): Promise<AddressRecipients>;
}

/**
 * The operators' names for the endpoints that receive addresses, once each in the order they were
 * added, and how many have none, counted by host so two endpoints of one service count once.
 * Disabled endpoints count, as they are still configured to receive addresses and a replay enables
 * them again.
 */
export function addressRecipientsOf(endpoints: readonly WebhookEndpoint[]): AddressRecipients {
  const receiving = endpoints.filter((endpoint) => endpoint.withAddress);
  const names = receiving.flatMap((endpoint) => (endpoint.name === null ? [] : [endpoint.name]));
  const unnamed = new Set(
    receiving
      .filter((endpoint) => endpoint.name === null)
      .map((endpoint) => URL.parse(endpoint.url)?.host ?? endpoint.url),
  ).size;
  return { names: [...new Set(names)], unnamed };
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
}): RecipientsReader {
  let recipients = NO_RECIPIENTS;
  let readAt: number | undefined;
  let reading: Promise<AddressRecipients> | undefined;
  let failing = false;

  async function read(): Promise<AddressRecipients> {
    try {
      recipients = addressRecipientsOf(await webhooks.list());
      if (failing) logger.info('webhook endpoints read again: /privacy names them');
      failing = false;
    } catch (err) {
      // Pages go on with the names known before; one line per outage, not one per page.
      if (!failing)
        logger.error({ err }, 'webhook endpoints unreadable: /privacy keeps the names it knew');
      failing = true;
    }
    // A failed read waits its turn like a good one, so a store that is down is not asked per page.
    readAt = now();
    return recipients;
  }

  return {
    current() {
      if (readAt !== undefined && now() - readAt < maxAgeMs) return Promise.resolve(recipients);
      // One read at a time, shared by every page that asks meanwhile.
      reading ??= read().finally(() => (reading = undefined));
      return reading;
    },
  };
}
