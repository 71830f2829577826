// A form submission as plain fields, whichever encoding it came in (multipart, urlencoded, JSON),
// so the embedded store, the outbox and validation all see the same thing.
import { isMultipart, type FormFields } from './body';
import { ApiError } from './errors';
import { hasType, type ApiRequest } from './http';
import type { FormFieldList } from '../store/outbox';

export function fieldsOf(req: ApiRequest): FormFields {
  if (isMultipart(req)) return (req.body ?? {}) as FormFields;
  const raw = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
  if (hasType(req, 'application/json')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw new ApiError(400, 'Malformed JSON');
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new ApiError(400, 'Expected a JSON object');
    return parsed as FormFields;
  }
  if (hasType(req, 'application/x-www-form-urlencoded')) {
    const fields: FormFields = {};
    for (const [name, value] of new URLSearchParams(raw)) {
      const previous = fields[name];
      fields[name] = previous === undefined ? value : ([] as unknown[]).concat(previous, value);
    }
    return fields;
  }
  throw new ApiError(415, 'Send multipart/form-data, application/x-www-form-urlencoded or application/json');
}

/** Flattens fields to name/value pairs, the way multer's own field names nest (a[b], repeats). */
export function toFieldList(fields: FormFields): FormFieldList {
  const list: FormFieldList = [];
  const add = (name: string, value: unknown) => {
    if (Array.isArray(value)) for (const item of value) add(name, item);
    else if (value !== null && typeof value === 'object') for (const [key, inner] of Object.entries(value)) add(`${name}[${key}]`, inner);
    else if (value !== undefined) list.push([name, String(value)]);
  };
  for (const [name, value] of Object.entries(fields)) add(name, value);
  return list;
}
