// POST /bounces/<provider>: where a mail provider reports the bounces and complaints of mail it
// took from us (decision 0038, docs/operating.md "Bounces and complaints"). Each provider's route
// answers 404 until its setting is there. A request is read whole (1 MB at most: 413), checked by
// the provider's module (its signature or credentials: 401, counted, nothing changes), and its
// notices applied by the store, each once. The answer is the same whether or not an address is on
// the list; nothing here logs an address, a token or a signature.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config';
import { sendJson, sendJsonError } from '../http/errors';
import type { Logger } from '../logger';
import type { Metrics } from '../metrics';
import type { Store } from '../store';
import type { BounceOutcome } from '../store/bounces';
import { removeMailCopies } from '../waitlist/remove';
import { configuredEndpoints } from './endpoints';
import {
  Refused,
  Unreadable,
  type BounceNotice,
  type BounceProvider,
  type ProviderEndpoint,
} from './notices';
import type { FetchText } from './ses';

/** The mount every provider's route is under. */
export const BOUNCES_PREFIX = '/bounces/';

/** The largest notification taken; SES batches none, SendGrid's batches stay well under. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** How long a provider is asked to wait before it retries when the store is away. */
const RETRY_AFTER_SECONDS = 60;

export const isBounceUrl = (req: IncomingMessage) =>
  req.url === '/bounces' || req.url!.startsWith(BOUNCES_PREFIX);

export interface BounceDeps {
  config: Config;
  store: Pick<Store, 'bounces'>;
  logger: Logger;
  metrics: Metrics;
  /** Told when a notice queued a webhook event (undeliverable, left). */
  wakeWebhooks?: () => void;
  /** How SES's module fetches SNS certificates and confirms subscriptions (tests inject one). */
  fetchText?: FetchText;
  now?: () => number;
}

class BodyTooLarge extends Error {}

/** The whole body, refusing more than `limit` bytes (declared or sent) before holding it all. */
function readWhole(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    if (Number(req.headers['content-length'] ?? 0) > limit) {
      req.resume();
      return reject(new BodyTooLarge());
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        return reject(new BodyTooLarge());
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** What one notice's outcome is counted as in address_events_total. */
function addressEventOf(outcome: BounceOutcome) {
  if (outcome.kind === 'undeliverable') return 'undeliverable' as const;
  if (outcome.kind === 'left') return 'left' as const;
  return undefined;
}

export function bounceRoutes(deps: BounceDeps) {
  const { config, store, logger, metrics, now = Date.now } = deps;
  const endpoints: ReadonlyMap<BounceProvider, ProviderEndpoint> = configuredEndpoints(config, {
    fetchText: deps.fetchText,
  });

  const refuse = (res: ServerResponse, provider: BounceProvider, err: Refused) => {
    metrics.bounceRefused(provider, err.reason);
    logger.warn({ provider, reason: err.reason }, 'bounce notification refused');
    sendJsonError(res, 401, err.message);
  };

  async function apply(provider: BounceProvider, notices: readonly BounceNotice[]) {
    const outcomes: Record<string, number> = {};
    for (const notice of notices) {
      const outcome = await store.bounces.apply(provider, notice);
      outcomes[outcome.kind] = (outcomes[outcome.kind] ?? 0) + 1;
      if (outcome.kind === 'duplicate' || notice.kind === 'ignored') continue;
      metrics.bounce(provider, notice.kind);
      const event = addressEventOf(outcome);
      if (event) {
        metrics.address(event);
        deps.wakeWebhooks?.();
      }
      if (outcome.kind === 'left') removeMailCopies(config.dataDir, outcome.mailIds);
    }
    return outcomes;
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const name = new URL(req.url!, 'http://site').pathname.slice(BOUNCES_PREFIX.length);
    const endpoint = endpoints.get(name as BounceProvider);
    if (!endpoint) return sendJsonError(res, 404, 'Not found');
    const { provider } = endpoint;
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      return sendJsonError(res, 405, 'Method not allowed');
    }
    let body: Buffer;
    try {
      body = await readWhole(req, MAX_BODY_BYTES);
    } catch (err) {
      if (err instanceof BodyTooLarge) return sendJsonError(res, 413, 'Body over 1 MB');
      return sendJsonError(res, 400, 'Body not read');
    }
    try {
      const read = await endpoint.read({ headers: req.headers, body }, now());
      if (
        read.token &&
        !(await store.bounces.claimToken(provider, read.token.value, read.token.notice))
      )
        return refuse(res, provider, new Refused('replay', 'Token already used for another event'));
      const outcomes = await apply(provider, read.notices);
      logger.info({ provider, notices: read.notices.length, outcomes }, 'bounce notification');
      sendJson(res, 200, { received: read.notices.length });
    } catch (err) {
      if (err instanceof Refused) return refuse(res, provider, err);
      if (err instanceof Unreadable) return sendJsonError(res, 400, err.message);
      // The store or the provider's certificate host away: the provider retries later.
      logger.error({ err, provider }, 'bounce notification not applied');
      res.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
      sendJsonError(res, 503, 'Not applied; try again later');
    }
  }

  return {
    handle: (req: IncomingMessage, res: ServerResponse) => void handle(req, res),
  };
}
