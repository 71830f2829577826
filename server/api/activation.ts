// POST /api/subscription-activation answered by the site itself when no BACKEND_URL is set:
// checks an activation key issued from the embedded store (docs/product.md §7).
import type { ServerResponse } from 'node:http';
import { checkActivation } from '../../shared/signup';
import { fieldsOf, type BodyRequest } from '../http/body';
import { HttpError, sendJson } from '../http/errors';
import type { Signups } from '../store/signups';

export const INVALID_KEY = 'Invalid activation key';

export function activationEndpoint(signups: Signups) {
  return async (req: BodyRequest, res: ServerResponse): Promise<void> => {
    const checked = checkActivation(fieldsOf(req));
    if (!checked.ok || !signups.activate(checked.value.email, checked.value.key)) throw new HttpError(400, INVALID_KEY);
    sendJson(res, 200, { email: checked.value.email, isActive: true });
  };
}
