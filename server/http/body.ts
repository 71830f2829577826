// Reads request bodies for the form POSTs and the proxy: multipart through multer (fields only,
// with limits), everything else as raw bytes; then fieldsOf turns any of the three form encodings
// (multipart, urlencoded, JSON) into the same plain fields.
import type { IncomingMessage, ServerResponse } from 'node:http';
import express from 'express';
import multer, { MulterError } from 'multer';
import typeis from 'type-is';
import { HttpError, type RefusalReason } from './errors';
import type { FieldList } from '../../shared/form-checks';

/** A request whose body has been read: multipart fields (multer), raw bytes, or nothing. */
export type BodyRequest = IncomingMessage & { body?: unknown };

/**
 * Connect-style middleware, usable with and without Express (multer, body-parser, the rate
 * limiter).
 */
export type Middleware = (
  req: IncomingMessage,
  res: ServerResponse,
  next: (err?: unknown) => void,
) => void;

/**
 * A parsed body: names mapped to strings, arrays or nested objects (as multer and JSON give them).
 */
export type FormFields = Record<string, unknown>;

/** Fields flattened to name/value pairs, in order: what a multipart body carries. */
export type { FieldList };

/** Limits on what one form submission may carry (see docs/decisions/0008-abuse.md). */
const BODY_LIMITS = {
  multipartFields: 10,
  multipartFieldBytes: 16 * 1024,
  multipartParts: 12,
  fieldNameBytes: 100,
  rawBytes: 32 * 1024,
} as const;

/** Express's req.is(type), for any request: false when the body is of another type or absent. */
function hasType(req: IncomingMessage, type: string): boolean {
  return Boolean(typeis(req, [type]));
}

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

const MULTER_STATUS: Record<string, [number, string, RefusalReason]> = {
  LIMIT_UNEXPECTED_FILE: [400, 'File uploads are not accepted', 'fileUpload_'],
  LIMIT_FILE_COUNT: [400, 'File uploads are not accepted', 'fileUpload_'],
  LIMIT_FILE_SIZE: [400, 'File uploads are not accepted', 'fileUpload_'],
  LIMIT_PART_COUNT: [413, 'Too many form parts', 'tooManyParts_'],
  LIMIT_FIELD_COUNT: [413, 'Too many form fields', 'tooManyFields_'],
  LIMIT_FIELD_VALUE: [413, 'A form field is too long', 'fieldTooLong_'],
  LIMIT_FIELD_KEY: [413, 'A form field name is too long', 'fieldNameTooLong_'],
};

function multipartError(err: unknown): HttpError {
  if (err instanceof MulterError) {
    const [status, message, reason] = MULTER_STATUS[err.code] ?? [
      400,
      'Malformed form data',
      'malformed_',
    ];
    return new HttpError(status, message, reason);
  }
  // busboy: bad boundary, truncated body, malformed part headers…
  return new HttpError(400, 'Malformed form data', 'malformed_');
}

const rawParser = express.raw({ type: () => true, limit: BODY_LIMITS.rawBytes }) as Middleware;

function rawError(err: unknown): HttpError {
  const e = err as { status?: number; type?: string };
  if (e.type === 'entity.too.large')
    return new HttpError(413, 'Request body too large', 'tooLarge_');
  if (e.type === 'request.aborted') return new HttpError(400, 'Request aborted', 'aborted_');
  const status = e.status && e.status < 500 ? e.status : 400;
  return new HttpError(status, 'Unreadable request body', 'unreadable_');
}

/**
 * Parses the body: multipart → req.body (fields), anything else → req.body (Buffer), GET/HEAD →
 * untouched.
 */
export const readBody: Middleware = (req, res, next) => {
  if (req.method === 'GET' || req.method === 'HEAD') return next();
  const [parse, toError] = isMultipart(req)
    ? [multipartFields, multipartError]
    : [rawParser, rawError];
  parse(req, res, (err?: unknown) => next(err ? toError(err) : undefined));
};

/**
 * A field or query value as text: a repeated or nested one (an array, an object) counts as absent.
 */
export const asText = (value: unknown): string => (typeof value === 'string' ? value : '');

/**
 * The submitted fields, whichever encoding they came in; 4xx HttpError when they are not a form.
 */
export function fieldsOf(req: BodyRequest): FormFields {
  if (isMultipart(req)) return (req.body ?? {}) as FormFields;
  const raw = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
  if (hasType(req, 'application/json')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw new HttpError(400, 'Malformed JSON');
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
      throw new HttpError(400, 'Expected a JSON object');
    return parsed as FormFields;
  }
  if (hasType(req, 'application/x-www-form-urlencoded'))
    return fieldsOfPairs(new URLSearchParams(raw));
  throw new HttpError(
    415,
    'Send multipart/form-data, application/x-www-form-urlencoded or application/json',
  );
}

/** Flattens fields to name/value pairs, the way multer's own field names nest (a[b], repeats). */
export function toFieldList(fields: FormFields): FieldList {
  const list: FieldList = [];
  const add = (name: string, value: unknown) => {
    if (Array.isArray(value)) for (const item of value) add(name, item);
    else if (value !== null && typeof value === 'object')
      for (const [key, inner] of Object.entries(value)) add(`${name}[${key}]`, inner);
    // Arrays and objects are taken apart above: what is left is a string, number or boolean.
    // eslint-disable-next-line @typescript-eslint/no-base-to-string
    else if (value !== undefined) list.push([name, String(value)]);
  };
  for (const [name, value] of Object.entries(fields)) add(name, value);
  return list;
}

/**
 * Middleware after readBody for the forms React Router's actions answer (the waitlist form, the
 * address pages): the fields are parsed here, before any route runs, so a body that is no form
 * at all (bad JSON, an unknown type) gets a 4xx, not an error page. req.body becomes the form in
 * one encoding, whichever it came in, for the Request the action reads (pages/render.tsx).
 */
export const readFields = (
  req: BodyRequest,
  _res: ServerResponse,
  next: (err?: unknown) => void,
): void => {
  // fieldsOf throws an HttpError for a body that is no form; Express hands it to the error handler.
  req.body = new URLSearchParams(toFieldList(fieldsOf(req)));
  next();
};

/** Name/value pairs (a urlencoded body, a FormData) as fields: a repeated name gives an array. */
export function fieldsOfPairs(pairs: Iterable<[string, unknown]>): FormFields {
  const fields: FormFields = {};
  for (const [name, value] of pairs) {
    const previous = fields[name];
    fields[name] = previous === undefined ? value : ([] as unknown[]).concat(previous, value);
  }
  return fields;
}
