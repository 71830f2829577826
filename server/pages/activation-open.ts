// The activation form without JavaScript (docs/product.md §4, docs/decisions/0006). The web app
// reads the key as `key`, the product names it `token`, and a form can't send one typed value
// under two names; so the form posts to this route, which answers 303 to the very URL the script
// opens (activationUrl). A POST keeps the key out of the URLs our reverse proxy and CDN log; a GET
// (a page cached before the form posted) is answered the same. The Location carries the key:
// every answer is no-store and no-referrer, and our access log keeps only the path.
import type { Request, Response } from 'express';
import { ACTIVATION, activationUrl } from '../../shared/links';
import { checkActivation } from '../../shared/form-checks';
import { fieldsOf, type BodyRequest } from '../http/body';
import { CONTENT_TYPES, sendText } from '../http/errors';
import { sendFormError, type BackLink } from './error-page';

export function openActivation(webAppUrl: string) {
  return (req: Request, res: Response): void => {
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Referrer-Policy', 'no-referrer');
    const fields: Record<string, unknown> =
      req.method === 'POST' ? fieldsOf(req as BodyRequest) : req.query;
    const email = fields[ACTIVATION.emailParam];
    // The same check as POST /api/subscription-activation, which names the key `key`.
    const checked = checkActivation({ email, key: fields[ACTIVATION.keyParam] });
    if (!checked.ok) {
      // The form's own label, not the API's field name: this page is read by a person.
      const message =
        checked.field === 'key' && checked.error.startsWith('key: ')
          ? `Activation key: ${checked.error.slice(5)}`
          : checked.error;
      return sendFormError(req, res, 400, message, backToTheForm(email));
    }
    sendText(res, 303, CONTENT_TYPES.text, '', {
      Location: activationUrl(webAppUrl, checked.value.email, checked.value.key),
    });
  };
}

/**
 * Back to /activate with the email already filled in, so only what was wrong needs typing again.
 */
function backToTheForm(email: unknown): BackLink {
  const typed = typeof email === 'string' ? email.trim() : '';
  const query = typed ? `?${new URLSearchParams({ [ACTIVATION.emailParam]: typed })}` : '';
  return { href: `/activate${query}`, text: 'Back to the activation form' };
}
