// The no-JavaScript door to the one road: the waitlist form's native POST to /?index. Express
// reads the body (read), React Router runs the index route's action, which calls submitWaitlist
// (contextFor). The visitor sees the browser's own rules and messages (docs/product.md §5) and is
// joined whatever the backend answered (docs/decisions/0006-no-javascript.md).
import type { IncomingMessage } from 'node:http';
import type { ServerActionContext, WaitlistSubmission } from '../../shared/native-form';
import { hasErrors, validateWaitlist, type WaitlistFields } from '../../shared/validation';
import { asText, formFieldsOf } from '../http/body';
import { contextOf } from '../http/front-door';
import type { Logger } from '../logger';
import type { SubmitSignup } from '../waitlist/signup';

export function nativeForm(submitSignup: SubmitSignup, logger: Logger) {
  async function submitWaitlist(req: IncomingMessage): Promise<WaitlistSubmission> {
    const fields = formFieldsOf(req);
    // Trimmed as a browser trims an email input, so curl and a browser get the same answer.
    const values: WaitlistFields = { email: asText(fields.email).trim(), description: asText(fields.description) };
    const errors = validateWaitlist(values);
    if (hasErrors(errors)) return { ok: false, values, errors };
    const outcome = await submitSignup({ fields, from: { client: contextOf(req).client } });
    if (outcome.kind !== 'invalid') return { ok: true };
    return { ok: false, values, errors: { [outcome.field]: outcome.message } };
  }

  return {
    /** What the route action gets as its context. */
    contextFor(req: IncomingMessage): ServerActionContext {
      return {
        submitWaitlist: async () => {
          try {
            return await submitWaitlist(req);
          } catch (err) {
            // The store cannot take it now (the database away, a full queue): the form again, with
            // what was typed and the reason, so the visitor can simply send it again shortly.
            if ((err as { unavailable?: boolean }).unavailable === true) {
              logger.warn({ reason: (err as Error).name }, 'store unavailable');
              const fields = formFieldsOf(req);
              const values = { email: asText(fields.email).trim(), description: asText(fields.description) };
              return { ok: false, values, errors: { email: (err as Error).message }, status: 503 };
            }
            // The error page shows a status, never our internals (they would reach the hydration data).
            logger.error({ err }, 'native waitlist signup failed');
            throw new Response(null, { status: 503, statusText: 'Service Unavailable' });
          }
        },
      };
    },
  };
}
