// With BACKEND_URL, every /api call but a signup is relayed to the backend and its answer sent
// back unchanged; 502 when the backend is unreachable, 504 when it is too slow. An activation is
// checked first, so nothing malformed is forwarded.
import type { ServerResponse } from 'node:http';
import { checkActivation } from '../../shared/form-checks';
import type { Config } from '../config';
import { BackendTimeoutError, ClientGoneError } from '../backend/client';
import { relayToBackend, sendBackendAnswer } from '../backend/relay';
import { loggedPath } from '../http/access-log';
import { fieldsOf, type BodyRequest } from '../http/body';
import { HttpError } from '../http/errors';
import type { RequestContext } from '../http/request-pipeline';
import { backendTarget } from '../http/safe-path';
import type { Logger } from '../logger';
import { INVALID_KEY } from './activation';
import type { ApiRoute } from './routes';

export function proxyEndpoint(
  config: Pick<Config, 'backendTimeoutMs'> & { backendUrl: string },
  logger: Logger,
) {
  return async (
    req: BodyRequest,
    res: ServerResponse,
    { client }: RequestContext,
    route: ApiRoute | undefined,
  ): Promise<void> => {
    if (route === 'activation' && req.method === 'POST' && !checkActivation(fieldsOf(req)).ok)
      throw new HttpError(400, INVALID_KEY);
    const target = backendTarget(config.backendUrl, req.url!);
    if (!target) throw new HttpError(400, 'Invalid API path');
    try {
      sendBackendAnswer(
        res,
        await relayToBackend(req, res, client, target, config.backendTimeoutMs),
      );
    } catch (err) {
      if (err instanceof ClientGoneError) return; // nobody is listening any more
      const timedOut = err instanceof BackendTimeoutError;
      logger.warn(
        { path: loggedPath(req.url), reason: (err as Error).message },
        timedOut ? 'backend timed out' : 'backend unreachable',
      );
      throw timedOut
        ? new HttpError(504, 'The backend did not answer in time')
        : new HttpError(502, 'The backend is unavailable');
    }
  };
}
