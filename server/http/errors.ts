// Small whole answers and errors to clients, in one place: an HttpError carries its status as
// data, sendText writes any short answer in one go, sendJsonError writes `{ "error": "..." }`. No
// stack trace or internal detail ever reaches a client; details go to the log where the error is
// caught.
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { FormMessages } from '../../shared/messages/types';

/** Why a form was turned away, as data: the key of its words on the form error page. */
export type RefusalReason = keyof FormMessages['reasons_'];

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** What the form error page says instead, in the page's language (server/pages/error-page). */
    readonly reason?: RefusalReason,
  ) {
    super(message);
  }
}

/** The store's refusals (server/store/errors.ts) by what they are, for the form error page. */
export function unavailableReason(err: { name?: unknown; queue?: unknown }): RefusalReason {
  if (err.name !== 'QueueFullError') return 'storeUnavailable_';
  return err.queue === 'mail' ? 'mailFull_' : 'outboxFull_';
}

/** What a client sees of an error of ours. */
export const INTERNAL_ERROR = 'Internal server error';

export const CONTENT_TYPES = {
  json: 'application/json; charset=utf-8',
  html: 'text/html; charset=utf-8',
  text: 'text/plain; charset=utf-8',
} as const;

/**
 * A whole answer with its length (and any extra headers); a response already under way is cut
 * instead.
 */
export function sendText(
  res: ServerResponse,
  status: number,
  contentType: string,
  body: string,
  headers: OutgoingHttpHeaders = {},
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.statusCode = status;
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined) res.setHeader(name, value);
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

export function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers?: OutgoingHttpHeaders,
): void {
  sendText(res, status, CONTENT_TYPES.json, JSON.stringify(value), headers);
}

/** `{ "error": message }` with the status. */
export function sendJsonError(res: ServerResponse, status: number, message: string): void {
  sendJson(res, status, { error: message });
}

/**
 * An HttpError as it is; another library's 4xx (Express, its static files) as a bare 'Bad request';
 * anything else is our fault: a 500 that says nothing more, and `ours` so the caller logs it.
 */
export function statusAndMessage(err: unknown): {
  status: number;
  message: string;
  ours: boolean;
  retryAfterSeconds?: number;
  /** What a person's page says instead of the English message, when known. */
  reason?: RefusalReason;
} {
  if (err instanceof HttpError)
    return { status: err.status, message: err.message, ours: false, reason: err.reason };
  // The store could not take it now (a full queue, the database away): 503, try again later.
  const unavailable = err as
    | { unavailable?: boolean; retryAfterSeconds?: number; message?: string; name?: string }
    | undefined;
  if (unavailable?.unavailable === true)
    return {
      status: 503,
      message: String(unavailable.message),
      ours: false,
      retryAfterSeconds: unavailable.retryAfterSeconds,
      reason: unavailableReason(unavailable),
    };
  const status = (err as { status?: unknown } | undefined)?.status;
  if (typeof status === 'number' && status >= 400 && status < 500)
    return { status, message: 'Bad request', ours: false };
  return { status: 500, message: INTERNAL_ERROR, ours: true };
}
