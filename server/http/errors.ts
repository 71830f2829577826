// Errors to clients, in one place: an HttpError carries its status (and any header it needs) as
// data, and sendJsonError writes `{ "error": "..." }`. No stack trace or internal detail ever
// reaches a client; details go to the log where the error is caught.
import type { ServerResponse } from 'node:http';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/** `{ "error": message }` with the status; a response already under way is cut instead. */
export function sendJsonError(res: ServerResponse, status: number, message: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, status, { error: message });
}

/** An HttpError as it is; anything else is our fault: a 500 that says nothing more. */
export function statusAndMessage(err: unknown): { status: number; message: string; ours: boolean } {
  if (err instanceof HttpError) return { status: err.status, message: err.message, ours: false };
  return { status: 500, message: 'Internal error', ours: true };
}
