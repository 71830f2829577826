// The activation form without JavaScript (docs/product.md §4, docs/decisions/0006). The web app
// reads the key as `key`, the product names it `token`, and a form can't send one typed value
// under two names; so the form posts to this route, which answers 303 to the very URL the script
// opens (activationUrl). A POST keeps the key out of the URLs our reverse proxy and CDN log; a GET
// (a page cached before the form posted) is answered the same. The Location carries the key:
// every answer is no-store and no-referrer, and our access log keeps only the path. A refusal is
// worded in the language of the path (/activate/open, /ru/activate/open), as the form was.
import type { Request, Response } from 'express';
import { ACTIVATION, activationUrl } from '../../shared/links';
import { checkActivation } from '../../shared/form-checks';
import { EMAIL_MAX_LENGTH } from '../../shared/validation';
import { languageBase, languageOfPath, LOCALES } from '../../shared/i18n/languages';
import { CATALOGS } from '../../shared/messages';
import type { ActivateMessages } from '../../shared/messages/types';
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
      const language = languageOfPath(req.path);
      const m = CATALOGS[language].activate;
      res.setHeader('Content-Language', LOCALES[language].tag);
      const back = backToTheForm(email, languageBase(language), m);
      return sendFormError(req, res, 400, refusal(checked.field, fields, m), back);
    }
    sendText(res, 303, CONTENT_TYPES.text, '', {
      Location: activationUrl(webAppUrl, checked.value.email, checked.value.key),
    });
  };
}

/**
 * What a person reads for the refused field. checkActivation words its refusals for the API, in
 * English; the page says the same in its language, telling the cases apart by the value, in the
 * check's order (the key is checked once the email is good).
 */
function refusal(field: 'email' | 'key', fields: Record<string, unknown>, m: ActivateMessages) {
  if (field === 'key') {
    const key = fields[ACTIVATION.keyParam];
    return typeof key === 'string' && key.trim() ? m.keyInvalid_ : m.keyMissing_;
  }
  const email = fields[ACTIVATION.emailParam];
  if (email !== undefined && typeof email !== 'string') return m.emailNotOne_;
  const typed = (email ?? '').trim();
  if (typed.length > EMAIL_MAX_LENGTH) return m.emailTooLong_(EMAIL_MAX_LENGTH);
  return typed ? m.emailInvalid_ : m.emailRequired_;
}

/**
 * Back to /activate (/ru/activate) with the email already filled in, so only what was wrong needs
 * typing again.
 */
function backToTheForm(email: unknown, base: string, m: ActivateMessages): BackLink {
  const typed = typeof email === 'string' ? email.trim() : '';
  const query = typed ? `?${new URLSearchParams({ [ACTIVATION.emailParam]: typed })}` : '';
  return { href: `${base}/activate${query}`, text: m.backToForm_ };
}
