// A browser that posted the native (no-JavaScript) form gets errors as a small HTML page with a
// way back, not raw JSON; scripts and API clients still get `{ "error": "..." }`.
import type { Request, Response } from 'express';
import { sendApiError } from './api/errors';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]);

/** True for a browser navigation (a form post) rather than fetch or an API client. */
function wantsHtml(req: Request): boolean {
  return req.accepts(['json', 'html']) === 'html';
}

export function sendFormError(req: Request, res: Response, status: number, message: string): void {
  if (!wantsHtml(req) || res.headersSent) return sendApiError(res, status, message);
  res
    .status(status)
    .type('html')
    .send(
      '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
        `<title>Could not send the form · OrgNote</title></head><body><main><h1>Could not send the form</h1><p>${escapeHtml(message)}</p>` +
        '<p><a href="/">Back to the waitlist</a></p></main></body></html>',
    );
}
