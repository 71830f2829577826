// The rest of the API answered by the site itself when no BACKEND_URL is set: activation keys
// from the embedded store, and clear JSON for anything else.
import type { ServerResponse } from 'node:http';
import { checkActivation } from '../../shared/signup';
import type { Waitlist } from '../store/waitlist';
import { ApiError } from './errors';
import { sendJson, type ApiRequest } from './http';
import type { ApiRoute } from './routes';
import { fieldsOf } from './submission';

export const INVALID_KEY = 'Invalid activation key';

export function embeddedApi(waitlist: Waitlist) {
  return async (req: ApiRequest, res: ServerResponse, route: ApiRoute | undefined): Promise<void> => {
    if (!route) throw new ApiError(404, 'Not found');
    if (route === 'activation' && req.method === 'POST') {
      const checked = checkActivation(fieldsOf(req));
      if (!checked.ok || !waitlist.activate(checked.value.email, checked.value.key)) throw new ApiError(400, INVALID_KEY);
      sendJson(res, 200, { email: checked.value.email, isActive: true });
      return;
    }
    res.setHeader('Allow', 'POST');
    throw new ApiError(405, 'Method not allowed');
  };
}
