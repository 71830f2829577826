// POST /api/subscriptions (docs/product.md §7): the API's handler of the signup operation
// (waitlist/signup.ts). It reads the fields, hands them over, and answers the outcome; the answer
// never says whether the address was already listed.
import type { ServerResponse } from 'node:http';
import { sendBackendAnswer } from '../backend/relay';
import { fieldsOf, type BodyRequest } from '../http/body';
import { HttpError, sendJson } from '../http/errors';
import type { RequestContext } from '../http/request-pipeline';
import type { SubmitSignup } from '../waitlist/signup';

export function signupEndpoint(submitSignup: SubmitSignup) {
  return async (
    req: BodyRequest,
    res: ServerResponse,
    { client }: RequestContext,
  ): Promise<void> => {
    const outcome = await submitSignup({ fields: fieldsOf(req), from: { client, path: req.url } });
    switch (outcome.kind) {
      // The field it is about, so a form shows the message under it (a refused domain, say);
      // `code` and its parameters (`max`, `domains`) let a page say it in its own language.
      case 'invalid':
        return sendJson(res, 400, {
          error: outcome.message,
          field: outcome.field,
          ...outcome.problem,
        });
      // Only the plain form is sent back for a fresh issue time; the API never meets one.
      case 'reissue':
        throw new HttpError(400, 'Send the signup again');
      case 'dropped':
      case 'stored':
        return sendJson(res, 201, { email: outcome.email });
      case 'queued':
        return sendJson(res, 202, { queued: true });
      case 'answered':
        return sendBackendAnswer(res, outcome.answer);
    }
  };
}
