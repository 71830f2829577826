// The waitlist form without JavaScript: a native multipart POST to /?index. The server checks it
// with the same rules and messages as the browser, then records it exactly like the API does.
import type { Request, Response } from 'express';
import type { ServerActionContext, WaitlistSubmission } from '../shared/native-form';
import { checkSignup, isHoneypotFilled } from '../shared/signup';
import type { Logger } from './logger';
import { validateWaitlist, type WaitlistFields } from '../shared/validation';
import { fieldsOf } from './api/submission';
import type { DeliverSignup } from './signups';

const asText = (value: unknown): string => (typeof value === 'string' ? value : '');

export async function submitNativeWaitlist(req: Request, res: Response, deliverSignup: DeliverSignup, logger: Logger): Promise<WaitlistSubmission> {
  const fields = fieldsOf(req);
  const values: WaitlistFields = { email: asText(fields.email), description: asText(fields.description) };
  const errors = validateWaitlist(values);
  if (Object.keys(errors).length === 0) {
    const checked = checkSignup({ ...fields, ...values });
    if (!checked.ok) {
      const field = checked.error.startsWith('Description') ? 'description' : 'email';
      errors[field] = checked.error;
    } else if (isHoneypotFilled(fields)) {
      logger.info({ event: 'honeypot' }, 'dropped a submission that filled the honeypot');
      return { ok: true };
    } else {
      await deliverSignup(req, res, checked.value);
      // Spec §4: what the backend thought is not shown; the visitor is joined either way.
      return { ok: true };
    }
  }
  return { ok: false, values, errors };
}

export function nativeFormContext(deliverSignup: DeliverSignup, logger: Logger) {
  return (req: Request, res: Response): ServerActionContext => ({
    submitWaitlist: () => submitNativeWaitlist(req, res, deliverSignup, logger),
  });
}
