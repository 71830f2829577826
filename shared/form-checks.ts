// What a signup or an activation must look like once it reaches a server: the docs/product.md §5
// rules plus the limits a store needs (RFC 5321 address length, a bounded description).
import { DEFAULT_LANGUAGE, type Language } from './i18n/languages';
import { checkEmail, EMAIL_MAX_LENGTH, MESSAGES, NOT_TEXT, type FieldErrors } from './validation';

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
  /** The language of the page it came from; English when not given. */
  language?: Language;
}

/** A refusal names its field as data, so a form can put the message under it. */
type Checked<T, Field extends string = string> =
  { ok: true; value: T } | { ok: false; field: Field; error: string };

/**
 * A signup's refusal: every field's problem as the page's form shows it (product §5: '' marks the
 * field without a message), and the first one as a sentence, which the API answers.
 */
export type SignupCheck = { ok: true; value: Signup } | SignupRefusal;
export type SignupField = 'email' | 'description' | 'language';
export type SignupErrors = FieldErrors<SignupField>;

interface SignupRefusal {
  ok: false;
  field: SignupField;
  error: string;
  errors: SignupErrors;
}

/** One field's verdict: its value, or the sentence to answer and what the form shows under it. */
type FieldCheck<T> = { ok: true; value: T } | { ok: false; error: string; shown: string };

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  return undefined;
}

function checkSignupEmail(raw: unknown): FieldCheck<string> {
  const refuse = (error: string, shown = error) => ({ ok: false, error, shown }) as const;
  if (raw !== undefined && typeof raw !== 'string')
    return refuse('Email must be a single text value');
  const email = (raw ?? '').trim();
  if (email.length > EMAIL_MAX_LENGTH)
    return refuse(`Email address is longer than ${EMAIL_MAX_LENGTH} characters`);
  if (NOT_TEXT.test(email)) return refuse('Email address is invalid');
  const problem = checkEmail(email);
  if (problem !== undefined) return refuse(problem || 'Email address is invalid', problem);
  return { ok: true, value: email };
}

function checkDescription(raw: unknown, required: boolean): FieldCheck<string> {
  const refuse = (error: string, shown = error) => ({ ok: false, error, shown }) as const;
  const tooLong = `Description is longer than ${DESCRIPTION_MAX_LENGTH} characters`;
  if (raw !== undefined && typeof raw !== 'string')
    return refuse('Description must be a single text value');
  const description = text(raw) ?? '';
  if (required && description === '') return refuse('Description is required', MESSAGES.required);
  if (NOT_TEXT.test(description))
    return refuse('Description contains characters that are not text');
  if (description.length > DESCRIPTION_MAX_LENGTH) return refuse(tooLong);
  return { ok: true, value: description };
}

export interface SignupRules {
  /** The page's form requires a description (product §5); the API does not (§7). */
  descriptionRequired?: boolean;
  /**
   * The languages a signup may name (LANGUAGES), when it records one: the embedded store does,
   * while with a backend the field goes to it unchecked, as sent.
   */
  languages?: readonly Language[];
}

/** The page's language: absent or empty is English, anything else must be one of `languages`. */
function checkLanguage(raw: unknown, languages: readonly Language[]): FieldCheck<Language> {
  if (raw === undefined || raw === '') return { ok: true, value: DEFAULT_LANGUAGE };
  const language = languages.find((known) => known === raw);
  if (language) return { ok: true, value: language };
  const error = `Language must be one of: ${languages.join(', ')}`;
  return { ok: false, error, shown: error };
}

/** The server's one check of a signup: every field at once, so a form can mark them all. */
export function checkSignup(fields: Record<string, unknown>, rules: SignupRules = {}): SignupCheck {
  const email = checkSignupEmail(fields.email);
  const description = checkDescription(fields.description, rules.descriptionRequired === true);
  const language = rules.languages ? checkLanguage(fields.language, rules.languages) : undefined;
  const errors: SignupErrors = {};
  if (!email.ok) errors.email = email.shown;
  if (!description.ok) errors.description = description.shown;
  if (language?.ok === false) errors.language = language.shown;
  if (!email.ok) return { ok: false, field: 'email', error: email.error, errors };
  if (!description.ok) return { ok: false, field: 'description', error: description.error, errors };
  if (language?.ok === false)
    return { ok: false, field: 'language', error: language.error, errors };
  const value: Signup = { email: email.value, description: description.value };
  return { ok: true, value: language ? { ...value, language: language.value } : value };
}

export function checkActivation(
  fields: Record<string, unknown>,
): Checked<{ email: string; key: string }, 'email' | 'key'> {
  const email = checkSignupEmail(fields.email);
  if (!email.ok) return { ok: false, field: 'email', error: email.error };
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
