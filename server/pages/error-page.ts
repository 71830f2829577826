// A browser that sent a native (no-JavaScript) form gets errors as a small HTML page with a way
// back to that form, not raw JSON; scripts and API clients still get `{ "error": "..." }`.
import type { IncomingMessage, ServerResponse } from 'node:http';
import Negotiator from 'negotiator';
import { CONTENT_TYPES, sendJsonError, sendText } from '../http/errors';
import { escapeMarkup } from '../../shared/markup';

/** True for a browser navigation (a form post) rather than fetch or an API client. */
function wantsHtml(req: IncomingMessage): boolean {
  return new Negotiator(req).mediaType(['application/json', 'text/html']) === 'text/html';
}

/** Where the page's one link leads: the form the visitor came from. */
export interface BackLink {
  href: string;
  text: string;
}

const TO_THE_WAITLIST: BackLink = { href: '/', text: 'Back to the waitlist' };

export function sendFormError(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  message: string,
  back = TO_THE_WAITLIST,
): void {
  if (!wantsHtml(req)) return sendJsonError(res, status, message);
  const page =
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    '<title>Could not send the form · OrgNote</title></head>' +
    `<body><main><h1>Could not send the form</h1><p>${escapeMarkup(message)}</p>` +
    `<p><a href="${escapeMarkup(back.href)}">${escapeMarkup(back.text)}</a></p>` +
    '</main></body></html>';
  sendText(res, status, CONTENT_TYPES.html, page, { 'Cache-Control': 'private, no-store' });
}
