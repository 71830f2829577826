// The rest of the API answered by the site itself when no BACKEND_URL is set: activation keys
// from the embedded store, and clear JSON for anything else.
import express, { type Router } from 'express';
import { checkActivation } from '../../shared/signup';
import type { Waitlist } from '../store/waitlist';
import { ApiError } from './errors';
import { fieldsOf } from './submission';

export const INVALID_KEY = 'Invalid activation key';

export function embeddedApi(waitlist: Waitlist): Router {
  const router = express.Router();

  router.post('/subscription-activation', (req, res) => {
    const checked = checkActivation(fieldsOf(req));
    if (!checked.ok || !waitlist.activate(checked.value.email, checked.value.key)) throw new ApiError(400, INVALID_KEY);
    res.status(200).json({ email: checked.value.email, isActive: true });
  });

  router.all(['/subscriptions', '/subscription-activation'], (_req, res) => {
    res.setHeader('Allow', 'POST');
    throw new ApiError(405, 'Method not allowed');
  });

  router.use(() => {
    throw new ApiError(404, 'Not found');
  });

  return router;
}
