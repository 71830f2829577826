// One place that takes a checked waitlist signup and makes it durable, whichever way it arrived
// (the API or the no-JavaScript form): the embedded store when there is no BACKEND_URL, otherwise
// the backend, with the outbox when the backend cannot take it (docs/decisions/0005-outbox.md).
import { API_PATHS } from '../shared/constants';
import type { Signup } from '../shared/signup';
import { callBackend } from './api/forward';
import type { ApiRequest } from './api/http';
import { upstreamUrl } from './api/safe-path';
import { fieldsOf, toFieldList } from './api/submission';
import type { UpstreamAnswer } from './api/upstream';
import type { Config } from './config';
import type { TrustProxy } from './forwarded';
import type { Logger } from './logger';
import type { Services } from './services';

export type Delivery = { kind: 'stored' } | { kind: 'answered'; answer: UpstreamAnswer } | { kind: 'queued' };

export function createSignupDesk(
  config: Pick<Config, 'backendUrl' | 'upstreamTimeoutMs'>,
  services: Pick<Services, 'waitlist' | 'outbox'>,
  logger: Logger,
  trust: TrustProxy,
) {
  // The fields are read again only here: the caller has already checked that they parse.
  const queue = (path: string, req: ApiRequest, reason: string): Delivery => {
    const id = services.outbox.enqueue(path, toFieldList(fieldsOf(req)));
    logger.warn({ outboxId: id, reason }, 'backend could not take a signup; queued');
    return { kind: 'queued' };
  };

  /**
   * `req` carries the submission as parsed fields (req.body); `path` is the API path and query
   * it goes to upstream. Returns only after the signup is committed somewhere.
   */
  return async function deliverSignup(req: ApiRequest, signup: Signup, path: string = API_PATHS.subscriptions): Promise<Delivery> {
    if (!config.backendUrl) {
      const added = services.waitlist.add(signup);
      logger.info({ event: 'signup', added }, 'waitlist signup');
      return { kind: 'stored' };
    }
    const target = upstreamUrl(config.backendUrl, path)!;
    let answer: UpstreamAnswer;
    try {
      // A signup is finished even if the visitor closes the tab: no response is passed, so the
      // call is never cancelled.
      answer = await callBackend(req, { target, timeoutMs: config.upstreamTimeoutMs, trust });
    } catch (err) {
      return queue(path, req, (err as Error).constructor.name);
    }
    if (answer.status >= 500) return queue(path, req, `status ${answer.status}`);
    return { kind: 'answered', answer };
  };
}

export type DeliverSignup = ReturnType<typeof createSignupDesk>;
