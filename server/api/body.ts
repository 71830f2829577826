// Reads /api request bodies so they can be forwarded (or handled locally) intact:
// multipart through multer (fields only, with limits), everything else as raw bytes.
import type { IncomingMessage } from 'node:http';
import express from 'express';
import multer, { MulterError } from 'multer';
import { ApiError } from './errors';
import { hasType, type Middleware } from './http';

/** Limits on what one form submission may carry (see docs/decisions/0008-abuse.md). */
const BODY_LIMITS = {
  multipartFields: 10,
  multipartFieldBytes: 16 * 1024,
  multipartParts: 12,
  fieldNameBytes: 100,
  rawBytes: 32 * 1024,
} as const;

/** A parsed multipart body as multer gives it: names mapped to strings, arrays or nested objects. */
export type FormFields = Record<string, unknown>;

export function isMultipart(req: IncomingMessage): boolean {
  return hasType(req, 'multipart/form-data');
}

const multipartFields = multer({
  limits: {
    fields: BODY_LIMITS.multipartFields,
    fieldSize: BODY_LIMITS.multipartFieldBytes,
    fieldNameSize: BODY_LIMITS.fieldNameBytes,
    parts: BODY_LIMITS.multipartParts,
    files: 0,
  },
}).none() as Middleware;

const MULTER_STATUS: Record<string, [number, string]> = {
  LIMIT_UNEXPECTED_FILE: [400, 'File uploads are not accepted'],
  LIMIT_FILE_COUNT: [400, 'File uploads are not accepted'],
  LIMIT_FILE_SIZE: [400, 'File uploads are not accepted'],
  LIMIT_PART_COUNT: [413, 'Too many form parts'],
  LIMIT_FIELD_COUNT: [413, 'Too many form fields'],
  LIMIT_FIELD_VALUE: [413, 'A form field is too long'],
  LIMIT_FIELD_KEY: [413, 'A form field name is too long'],
};

function toApiError(err: unknown): ApiError {
  if (err instanceof MulterError) {
    const [status, message] = MULTER_STATUS[err.code] ?? [400, 'Malformed form data'];
    return new ApiError(status, message);
  }
  // busboy: bad boundary, truncated body, malformed part headers…
  return new ApiError(400, 'Malformed form data');
}

const multipartBody: Middleware = (req, res, next) => {
  multipartFields(req, res, (err?: unknown) => next(err ? toApiError(err) : undefined));
};

const rawParser = express.raw({ type: () => true, limit: BODY_LIMITS.rawBytes }) as Middleware;

const rawBody: Middleware = (req, res, next) => {
  rawParser(req, res, (err?: unknown) => {
    if (!err) return next();
    const e = err as { status?: number; type?: string };
    if (e.type === 'entity.too.large') return next(new ApiError(413, 'Request body too large'));
    if (e.type === 'request.aborted') return next(new ApiError(400, 'Request aborted'));
    next(new ApiError(e.status && e.status < 500 ? e.status : 400, 'Unreadable request body'));
  });
};

/** Parses the body: multipart → req.body (fields), anything else → req.body (Buffer), no body → undefined. */
export const readApiBody: Middleware = (req, res, next) => {
  if (req.method === 'GET' || req.method === 'HEAD') return next();
  if (isMultipart(req)) {
    multipartBody(req, res, next);
    return;
  }
  rawBody(req, res, next);
};
