// GET /api/challenge (PROOF_OF_WORK=on): a fresh ALTCHA challenge for the form with JavaScript, a
// partner's page or a script (server/guard/proof-of-work.ts). Answered by the site even with
// BACKEND_URL set, since only the site checks the solution. No rate limit: a challenge is one hash
// and one HMAC, cheaper than the page that asks for it, and it is worth nothing until solved.
import type { ServerResponse } from 'node:http';
import type { Config } from '../config';
import type { BodyRequest } from '../http/body';
import { HttpError, sendJson } from '../http/errors';
import type { ProofOfWork } from '../guard/proof-of-work';
import { NO_STORE } from './activation';

export function challengeEndpoint(
  proof: ProofOfWork | undefined,
  config: Pick<Config, 'allowedOrigins'>,
) {
  return async (req: BodyRequest, res: ServerResponse): Promise<void> => {
    if (!proof) throw new HttpError(404, 'Not found');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      throw new HttpError(405, 'Method not allowed');
    }
    // A partner's page (ALLOWED_ORIGINS) may fetch a challenge for the signup it posts to us.
    const origin = req.headers.origin;
    const partner =
      origin && config.allowedOrigins.includes(origin)
        ? { 'Access-Control-Allow-Origin': origin, Vary: 'Origin' }
        : { Vary: 'Origin' };
    sendJson(res, 200, await proof.challenge(), { ...NO_STORE, ...partner });
  };
}
