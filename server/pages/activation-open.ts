// The activation form without JavaScript (docs/product.md §4, docs/decisions/0006). The web app
// reads the key as `key`, the product names it `token`, and a GET form can't send one typed value
// under two names; so the form GETs this route, which answers 303 to the very URL the script opens
// (activationUrl). Its own URL and the Location both carry the key: every answer is no-store and
// no-referrer, and the access log keeps only the path (http/access-log.ts).
import type { Request, Response } from 'express';
import { ACTIVATION, activationUrl } from '../../shared/links';
import { checkActivation } from '../../shared/signup';
import { CONTENT_TYPES, sendText } from '../http/errors';
import { sendFormError, type BackLink } from './error-page';

export function openActivation(webAppUrl: string) {
  return (req: Request, res: Response): void => {
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Referrer-Policy', 'no-referrer');
    const email = req.query[ACTIVATION.emailParam];
    // The same check as POST /api/subscription-activation, which names the key `key`.
    const checked = checkActivation({ email, key: req.query[ACTIVATION.keyParam] });
    if (!checked.ok) {
      // The form's own label, not the API's field name: this page is read by a person.
      const message = checked.field === 'key' && checked.error.startsWith('key: ') ? `Activation key: ${checked.error.slice(5)}` : checked.error;
      return sendFormError(req, res, 400, message, backToTheForm(email));
    }
    sendText(res, 303, CONTENT_TYPES.text, '', { Location: activationUrl(webAppUrl, checked.value.email, checked.value.key) });
  };
}

/** Back to /activate with the email already filled in, so only what was wrong needs typing again. */
function backToTheForm(email: unknown): BackLink {
  const typed = typeof email === 'string' ? email.trim() : '';
  const query = typed ? `?${new URLSearchParams({ [ACTIVATION.emailParam]: typed })}` : '';
  return { href: `/activate${query}`, text: 'Back to the activation form' };
}
