// What a signup or an activation must look like once it reaches a server: the docs/product.md §5
// rules plus the limits a store needs (RFC 5321 address length, a bounded description).
import { checkEmail, EMAIL_MAX_LENGTH, MESSAGES, NOT_TEXT } from './validation';

const DESCRIPTION_MAX_LENGTH = 2000;

/** Form fields in order, as name/value pairs (a multipart form may repeat a name). */
export type FieldList = [name: string, value: string][];

/** The visitor's X-Forwarded-* headers, as the backend gets them. */
export type ForwardedHeaders = Record<string, string>;

/**
 * A signup exactly as the backend gets it, every attempt alike: the checked fields as multipart,
 * the visitor's X-Forwarded-*, and one Idempotency-Key so the backend can drop a repeat. The
 * outbox keeps it whole until the backend has taken it.
 */
export interface SignupRequest {
  /** The API path and query it goes to (under BACKEND_URL). */
  path: string;
  fields: FieldList;
  forwarded: ForwardedHeaders;
  idempotencyKey: string;
}

export interface Signup {
  /** trimmed, as the visitor typed it */
  email: string;
  description: string;
}

/** A refusal names its field as data, so a form can put the message under it. */
type Checked<T, Field extends string = string> = { ok: true; value: T } | { ok: false; field: Field; error: string };

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  return undefined;
}

function checkSignupEmail(raw: unknown): Checked<string, 'email'> {
  const refuse = (error: string) => ({ ok: false, field: 'email', error }) as const;
  if (raw !== undefined && typeof raw !== 'string') return refuse('Email must be a single text value');
  const email = (raw ?? '').trim();
  if (email.length > EMAIL_MAX_LENGTH) return refuse(`Email address is longer than ${EMAIL_MAX_LENGTH} characters`);
  if (NOT_TEXT.test(email)) return refuse('Email address is invalid');
  const problem = checkEmail(email);
  if (problem !== undefined) return refuse(problem || 'Email address is invalid');
  return { ok: true, value: email };
}

/** Server-side check of a signup (docs/product.md §7: description optional for the API). */
export function checkSignup(fields: Record<string, unknown>): Checked<Signup, 'email' | 'description'> {
  const email = checkSignupEmail(fields.email);
  if (!email.ok) return email;
  const refuse = (error: string) => ({ ok: false, field: 'description', error }) as const;
  if (fields.description !== undefined && typeof fields.description !== 'string') return refuse('Description must be a single text value');
  const description = text(fields.description) ?? '';
  if (NOT_TEXT.test(description)) return refuse('Description contains characters that are not text');
  if (description.length > DESCRIPTION_MAX_LENGTH) return refuse(`Description is longer than ${DESCRIPTION_MAX_LENGTH} characters`);
  return { ok: true, value: { email: email.value, description } };
}

export function checkActivation(fields: Record<string, unknown>): Checked<{ email: string; key: string }, 'email' | 'key'> {
  const email = checkSignupEmail(fields.email);
  if (!email.ok) return email;
  const key = text(fields.key)?.trim() ?? '';
  if (!key) return { ok: false, field: 'key', error: `key: ${MESSAGES.required}` };
  if (key.length > 200) return { ok: false, field: 'key', error: 'Invalid activation key' };
  return { ok: true, value: { email: email.value, key } };
}

/**
 * A form field people never see or fill (hidden off-screen, out of the tab order and from
 * assistive technology). Bots that fill every field fill it; such a submission gets the normal
 * answer and is dropped.
 */
export const HONEYPOT_FIELD = 'website';

export function isHoneypotFilled(fields: Record<string, unknown>): boolean {
  const value = fields[HONEYPOT_FIELD];
  return value !== undefined && value !== '';
}

/** How two addresses are compared: trimmed and case-insensitive. */
export function emailKey(email: string): string {
  return email.trim().toLowerCase();
}
