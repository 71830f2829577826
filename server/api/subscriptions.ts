// POST /api/subscriptions (spec §7), in both modes: checked with the store's rules, then made
// durable by the signup desk. The answer never says whether the address was already listed.
import type { ServerResponse } from 'node:http';
import { checkSignup, isHoneypotFilled } from '../../shared/signup';
import type { Logger } from '../logger';
import type { DeliverSignup } from '../signups';
import { ApiError } from './errors';
import { sendUpstreamAnswer } from './forward';
import { sendJson, type ApiRequest } from './http';
import { fieldsOf } from './submission';

export function subscriptionsHandler(deliverSignup: DeliverSignup, logger: Logger) {
  return async (req: ApiRequest, res: ServerResponse): Promise<void> => {
    const fields = fieldsOf(req);
    const checked = checkSignup(fields);
    if (!checked.ok) throw new ApiError(400, checked.error);
    if (isHoneypotFilled(fields)) {
      logger.info({ event: 'honeypot' }, 'dropped a submission that filled the honeypot');
      sendJson(res, 201, { email: checked.value.email });
      return;
    }
    const delivery = await deliverSignup(req, checked.value, req.url);
    switch (delivery.kind) {
      case 'stored':
        sendJson(res, 201, { email: checked.value.email });
        return;
      case 'queued':
        sendJson(res, 202, { queued: true });
        return;
      case 'answered':
        sendUpstreamAnswer(res, delivery.answer);
        return;
    }
  };
}
