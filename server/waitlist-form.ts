// The waitlist form without JavaScript: a native multipart POST to /?index. The server checks it
// with the same rules and messages as the browser, then records it exactly like the API does.
import type { NextFunction, Request, Response } from 'express';
import type { FormFields } from './api/body';
import type { ServerActionContext, WaitlistSubmission } from '../shared/native-form';
import { checkSignup, HONEYPOT_FIELD, isHoneypotFilled } from '../shared/signup';
import type { Logger } from './logger';
import { hasErrors, validateWaitlist, type WaitlistFields } from '../shared/validation';
import { fieldsOf } from './api/submission';
import type { DeliverSignup } from './signups';

const asText = (value: unknown): string => (typeof value === 'string' ? value : '');

/**
 * Reads the native form's fields before React Router runs the action, so a body that is no form
 * at all (bad JSON, an unknown type) gets a 4xx from the error handler, not an error page.
 */
export function readNativeFields(req: Request, res: Response, next: NextFunction): void {
  res.locals.formFields = fieldsOf(req);
  next();
}

async function submitNativeWaitlist(req: Request, res: Response, deliverSignup: DeliverSignup, logger: Logger): Promise<WaitlistSubmission> {
  const fields = res.locals.formFields as FormFields;
  const values: WaitlistFields = { email: asText(fields.email), description: asText(fields.description) };
  const errors = validateWaitlist(values);
  if (!hasErrors(errors)) {
    const checked = checkSignup({ ...fields, ...values });
    if (!checked.ok) {
      const field = checked.error.startsWith('Description') ? 'description' : 'email';
      errors[field] = checked.error;
    } else if (isHoneypotFilled(fields)) {
      logger.info({ event: 'honeypot' }, 'dropped a submission that filled the honeypot');
      return { ok: true };
    } else {
      // A multipart form is forwarded re-encoded from these fields (they are req.body), so the
      // backend does not get our empty anti-spam field. Urlencoded and JSON go as they were sent.
      delete fields[HONEYPOT_FIELD];
      await deliverSignup(req, checked.value);
      // Spec §4: what the backend thought is not shown; the visitor is joined either way.
      return { ok: true };
    }
  }
  return { ok: false, values, errors };
}

export function nativeFormContext(deliverSignup: DeliverSignup, logger: Logger) {
  return (req: Request, res: Response): ServerActionContext => ({
    submitWaitlist: async () => {
      try {
        return await submitNativeWaitlist(req, res, deliverSignup, logger);
      } catch (err) {
        // The error page shows a status, never our internals (they would also reach the
        // hydration data).
        logger.error({ err }, 'native waitlist submission failed');
        throw new Response(null, { status: 503, statusText: 'Service Unavailable' });
      }
    },
  });
}
