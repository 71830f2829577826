// POST /api/subscriptions (spec §7), in both modes: checked with the store's rules, then made
// durable by the signup desk. The answer never says whether the address was already listed.
import type { Request, Response } from 'express';
import { checkSignup, isHoneypotFilled } from '../../shared/signup';
import type { Logger } from '../logger';
import type { DeliverSignup } from '../signups';
import { ApiError } from './errors';
import { sendUpstreamAnswer } from './forward';
import { fieldsOf } from './submission';

export function subscriptionsHandler(deliverSignup: DeliverSignup, logger: Logger) {
  return async (req: Request, res: Response): Promise<void> => {
    const fields = fieldsOf(req);
    const checked = checkSignup(fields);
    if (!checked.ok) throw new ApiError(400, checked.error);
    if (isHoneypotFilled(fields)) {
      logger.info({ event: 'honeypot' }, 'dropped a submission that filled the honeypot');
      res.status(201).json({ email: checked.value.email });
      return;
    }
    const delivery = await deliverSignup(req, res, checked.value, req.originalUrl);
    switch (delivery.kind) {
      case 'stored':
        res.status(201).json({ email: checked.value.email });
        return;
      case 'queued':
        res.status(202).json({ queued: true });
        return;
      case 'answered':
        sendUpstreamAnswer(res, delivery.answer);
        return;
    }
  };
}
