// Every other /api call relayed to BACKEND_URL, answer unchanged; 502 when the backend is
// unreachable, 504 when it is too slow. Activation requests are checked first, so nothing
// malformed is forwarded.
import type { ServerResponse } from 'node:http';
import { checkActivation } from '../../shared/signup';
import type { Config } from '../config';
import type { TrustProxy } from '../forwarded';
import type { Logger } from '../logger';
import { INVALID_KEY } from './embedded';
import { ApiError } from './errors';
import { callBackend, sendUpstreamAnswer } from './forward';
import type { ApiRequest } from './http';
import type { ApiRoute } from './routes';
import { upstreamUrl } from './safe-path';
import { ClientGoneError, UpstreamTimeoutError } from './upstream';
import { fieldsOf } from './submission';

export function proxyApi(config: Pick<Config, 'upstreamTimeoutMs'> & { backendUrl: string }, trust: TrustProxy, logger: Logger) {
  return async (req: ApiRequest, res: ServerResponse, route: ApiRoute | undefined): Promise<void> => {
    if (route === 'activation' && req.method === 'POST' && !checkActivation(fieldsOf(req)).ok) throw new ApiError(400, INVALID_KEY);
    const target = upstreamUrl(config.backendUrl, req.url!);
    if (!target) throw new ApiError(400, 'Invalid API path');
    try {
      sendUpstreamAnswer(res, await callBackend(req, { target, timeoutMs: config.upstreamTimeoutMs, trust }, res));
    } catch (err) {
      if (err instanceof ClientGoneError) return; // nobody is listening any more
      const timedOut = err instanceof UpstreamTimeoutError;
      logger.warn({ path: target.pathname, reason: (err as Error).message }, timedOut ? 'backend timed out' : 'backend unreachable');
      throw timedOut ? new ApiError(504, 'The backend did not answer in time') : new ApiError(502, 'The backend is unavailable');
    }
  };
}
