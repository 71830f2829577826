// A browser that sent a native (no-JavaScript) form gets errors as a small HTML page with a way
// back to that form, not raw JSON; scripts and API clients still get `{ "error": "..." }`, in
// English. The page is in the language of the address the form was posted to ('/ru/…': Russian).
import type { IncomingMessage, ServerResponse } from 'node:http';
import Negotiator from 'negotiator';
import { CONTENT_TYPES, sendJsonError, sendText, type RefusalReason } from '../http/errors';
import { escapeMarkup } from '../../shared/markup';
import type { FieldWords } from '../../shared/form-checks';
import { languageBase, languageOfPath, LOCALES, type Language } from '../../shared/i18n/languages';
import { CATALOGS } from '../../shared/messages';

/** True for a browser navigation (a form post) rather than fetch or an API client. */
function wantsHtml(req: IncomingMessage): boolean {
  return new Negotiator(req).mediaType(['application/json', 'text/html']) === 'text/html';
}

/** The language of the page a request came from: its address's (Express's originalUrl). */
export function requestLanguage(req: IncomingMessage & { originalUrl?: string }): Language {
  return languageOfPath(req.originalUrl ?? req.url ?? '/');
}

/** A language's words for what is wrong with a form's field (shared/form-checks.ts). */
export function fieldWords(language: Language): FieldWords {
  const { site, forms } = CATALOGS[language];
  return { site, forms };
}

/** Where the page's one link leads: the form the visitor came from. */
export interface BackLink {
  href: string;
  text: string;
}

/** A refusal the page words in its own language; the English `message` is the API's. */
export interface FormRefusal {
  message: string;
  reason?: RefusalReason;
}

export function sendFormError(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  refusal: string | FormRefusal,
  back?: BackLink,
): void {
  const { message, reason } = typeof refusal === 'string' ? { message: refusal } : refusal;
  if (!wantsHtml(req)) return sendJsonError(res, status, message);
  const language = requestLanguage(req);
  const { forms } = CATALOGS[language];
  const to = back ?? { href: `${languageBase(language)}/`, text: forms.backToWaitlist_ };
  const shown = reason ? forms.reasons_[reason] : message;
  const page =
    `<!DOCTYPE html><html lang="${LOCALES[language].tag}"><head><meta charset="utf-8">` +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${escapeMarkup(forms.title_)}</title></head>` +
    `<body><main><h1>${escapeMarkup(forms.heading_)}</h1><p>${escapeMarkup(shown)}</p>` +
    `<p><a href="${escapeMarkup(to.href)}">${escapeMarkup(to.text)}</a></p>` +
    '</main></body></html>';
  sendText(res, status, CONTENT_TYPES.html, page, {
    'Cache-Control': 'private, no-store',
    'Content-Language': LOCALES[language].tag,
  });
}
