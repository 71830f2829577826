// JSON errors for /api: `{ "error": "..." }` with the right status, never a stack trace.
import type { Response } from 'express';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export function sendApiError(res: Response, status: number, message: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.status(status).json({ error: message });
}
