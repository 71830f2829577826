// The API answered by the site itself when no BACKEND_URL is set: the waitlist lives in SQLite.
import express, { type Router } from 'express';
import { checkActivation, checkSignup } from '../../shared/signup';
import type { Logger } from '../logger';
import type { Waitlist } from '../store/waitlist';
import { ApiError } from './errors';
import { fieldsOf } from './submission';

export const INVALID_KEY = 'Invalid activation key';

export function embeddedApi(waitlist: Waitlist, logger: Logger): Router {
  const router = express.Router();

  router.post('/subscriptions', (req, res) => {
    const checked = checkSignup(fieldsOf(req));
    if (!checked.ok) throw new ApiError(400, checked.error);
    // Same answer for a new and a repeated address: the API never tells who is on the list.
    const added = waitlist.add(checked.value);
    logger.info({ event: 'signup', added }, 'waitlist signup');
    res.status(201).json({ email: checked.value.email });
  });

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
