// The no-JavaScript way into the signup operation: the waitlist form's native POST to /?index.
// Express reads the body, React Router runs the index route's action, which reads the form from its
// request and hands it here (submitterFor); signup() checks it (the page's language, a hidden
// field, included), once, for both forms. The visitor sees the product's messages (docs/product.md
// §5) and is joined whatever the backend answered (docs/decisions/0006-no-javascript.md).
import type { IncomingMessage } from 'node:http';
import type { SubmitWaitlistForm, WaitlistSubmission } from '../../shared/native-form';
import { asText, fieldsOfPairs } from '../http/body';
import { unavailableReason } from '../http/errors';
import { contextOf } from '../http/request-pipeline';
import type { Logger } from '../logger';
import type { SubmitSignup } from '../waitlist/signup';
import { fieldWords, requestLanguage } from './error-page';

/** The store cannot take it now (the database away, a full queue): it may be sent again. */
function isUnavailable(err: unknown): err is Error {
  return err instanceof Error && 'unavailable' in err && err.unavailable === true;
}

export function nativeForm(submitSignup: SubmitSignup, logger: Logger) {
  return {
    /** The form's operation for this request's visitor: what the route action is handed. */
    submitterFor(req: IncomingMessage): SubmitWaitlistForm {
      return async (form: FormData): Promise<WaitlistSubmission> => {
        const fields = fieldsOfPairs(form);
        // What was typed, shown again on an error; trimmed as a browser trims an email input.
        const email = asText(fields.email).trim();
        const values = { email, description: asText(fields.description) };
        try {
          const from = { client: contextOf(req).client };
          // The messages under the fields in the page's language: '/ru/?index' is Russian.
          const rules = { descriptionRequired: true, words: fieldWords(requestLanguage(req)) };
          const outcome = await submitSignup({ fields, from, rules, route: 'form' });
          // The form again, as typed, with a fresh issue time (PROOF_OF_WORK, server/guard/).
          if (outcome.kind === 'reissue') return { ok: false, values, errors: {}, reissued: true };
          if (outcome.kind !== 'invalid') return { ok: true };
          // The language is a hidden field, with no place of its own on the page: its refusal (a
          // page from elsewhere, or a language turned off) is shown where the 503's reason is.
          const { language, ...errors } = outcome.errors;
          if (language !== undefined) errors.email ??= language;
          return { ok: false, values, errors };
        } catch (err) {
          // The form again, with what was typed and the reason, so it can simply be sent again.
          if (isUnavailable(err)) {
            logger.warn({ reason: err.name }, 'store unavailable');
            const { forms } = fieldWords(requestLanguage(req));
            const reason = forms.reasons_[unavailableReason(err)];
            return { ok: false, values, errors: { email: reason }, status: 503 };
          }
          // The error page shows a status, never our internals (the hydration data carries it).
          logger.error({ err }, 'native waitlist signup failed');
          throw new Response(null, { status: 503, statusText: 'Service Unavailable' });
        }
      };
    },
  };
}
