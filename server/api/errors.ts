// JSON errors for /api: `{ "error": "..." }` with the right status, never a stack trace.
import type { ServerResponse } from 'node:http';
import { sendJson } from './http';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export function sendApiError(res: ServerResponse, status: number, message: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, status, { error: message });
}
