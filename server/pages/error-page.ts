// A browser that posted the native (no-JavaScript) form gets errors as a small HTML page with a
// way back, not raw JSON; scripts and API clients still get `{ "error": "..." }`.
import type { IncomingMessage, ServerResponse } from 'node:http';
import Negotiator from 'negotiator';
import { CONTENT_TYPES, sendJsonError, sendText } from '../http/errors';
import { escapeMarkup } from './markup';

/** True for a browser navigation (a form post) rather than fetch or an API client. */
function wantsHtml(req: IncomingMessage): boolean {
  return new Negotiator(req).mediaType(['application/json', 'text/html']) === 'text/html';
}

export function sendFormError(req: IncomingMessage, res: ServerResponse, status: number, message: string): void {
  if (!wantsHtml(req)) return sendJsonError(res, status, message);
  const page =
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>Could not send the form · OrgNote</title></head><body><main><h1>Could not send the form</h1><p>${escapeMarkup(message)}</p>` +
    '<p><a href="/">Back to the waitlist</a></p></main></body></html>';
  sendText(res, status, CONTENT_TYPES.html, page, { 'Cache-Control': 'private, no-store' });
}
