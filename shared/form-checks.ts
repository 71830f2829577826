// What a signup or an activation must look like once it reaches a server: the docs/product.md §5
// rules plus the limits a store needs (RFC 5321 address length, a bounded description).
import { problemText, type FieldProblem } from './field-problems';
import { DEFAULT_LANGUAGE, type Language } from './i18n/languages';
import enForms from './messages/en/forms';
import enSite from './messages/en/site';
import type { FormMessages, SiteMessages } from './messages/types';
import { boundSource, type SignupSource } from './sources';
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
  /** Where it came from (shared/sources.ts), bounded; none when not given. */
  source?: SignupSource;
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
  /** The first field's problem as data, which the API answers beside `error`. */
  problem: FieldProblem;
}

/** One field's verdict: its value, or the sentence to answer and the problem as data. */
type FieldCheck<T> = { ok: true; value: T } | { ok: false; error: string; problem: FieldProblem };

/** A page's words for what is wrong with a field: its language's `site` and `forms` parts. */
export interface FieldWords {
  site: SiteMessages;
  forms: FormMessages;
}

/** English: the words of a check for which no page's language is given (the API's). */
export const ENGLISH_WORDS: FieldWords = { site: enSite, forms: enForms };

/** What the page's form shows under the field: '' marks it without a message (product §5). */
export function shownText(problem: FieldProblem, words: FieldWords = ENGLISH_WORDS): string {
  const { forms } = words;
  switch (problem.code) {
    case 'email-not-one':
      return forms.emailNotOne_;
    case 'email-too-long':
      return forms.emailTooLong_(problem.max);
    case 'description-not-one':
      return forms.descriptionNotOne_;
    case 'description-not-text':
      return forms.descriptionNotText_;
    case 'language-unknown':
      return forms.languageUnknown_;
    default:
      return problemText(problem, words.site) ?? '';
  }
}

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  return undefined;
}

function checkSignupEmail(raw: unknown): FieldCheck<string> {
  const refuse = (error: string, problem: FieldProblem) => ({ ok: false, error, problem }) as const;
  if (raw !== undefined && typeof raw !== 'string')
    return refuse('Email must be a single text value', { code: 'email-not-one' });
  const email = (raw ?? '').trim();
  if (email.length > EMAIL_MAX_LENGTH)
    return refuse(`Email address is longer than ${EMAIL_MAX_LENGTH} characters`, {
      code: 'email-too-long',
      max: EMAIL_MAX_LENGTH,
    });
  if (NOT_TEXT.test(email)) return refuse('Email address is invalid', { code: 'email-invalid' });
  const problem = checkEmail(email);
  if (problem === '') return refuse('Email address is invalid', { code: 'email-mismatch' });
  if (problem !== undefined) return refuse(problem, { code: 'email-required' });
  return { ok: true, value: email };
}

function checkDescription(raw: unknown, required: boolean): FieldCheck<string> {
  const refuse = (error: string, problem: FieldProblem) => ({ ok: false, error, problem }) as const;
  const max = DESCRIPTION_MAX_LENGTH;
  if (raw !== undefined && typeof raw !== 'string')
    return refuse('Description must be a single text value', { code: 'description-not-one' });
  const description = text(raw) ?? '';
  if (required && description === '')
    return refuse('Description is required', { code: 'required' });
  if (NOT_TEXT.test(description))
    return refuse('Description contains characters that are not text', {
      code: 'description-not-text',
    });
  if (description.length > max)
    return refuse(`Description is longer than ${max} characters`, {
      code: 'description-too-long',
      max,
    });
  return { ok: true, value: description };
}

export interface SignupRules {
  /** The page's form requires a description (product §5); the API does not (§7). */
  descriptionRequired?: boolean;
  /**
   * The languages a signup may name, when it records one: the embedded store does, while with a
   * backend the field goes to it unchecked, as sent.
   */
  languages?: readonly Language[];
  /** The words `errors` are in, the page's language's (the plain form); English when not given. */
  words?: FieldWords;
}

/** The page's language: absent or empty is English, anything else must be one of `languages`. */
function checkLanguage(raw: unknown, languages: readonly Language[]): FieldCheck<Language> {
  if (raw === undefined || raw === '') return { ok: true, value: DEFAULT_LANGUAGE };
  const language = languages.find((known) => known === raw);
  if (language) return { ok: true, value: language };
  const error = `Language must be one of: ${languages.join(', ')}`;
  return { ok: false, error, problem: { code: 'language-unknown' } };
}

/** The server's one check of a signup: every field at once, so a form can mark them all. */
export function checkSignup(fields: Record<string, unknown>, rules: SignupRules = {}): SignupCheck {
  const email = checkSignupEmail(fields.email);
  const description = checkDescription(fields.description, rules.descriptionRequired === true);
  const { words } = rules;
  const language = rules.languages ? checkLanguage(fields.language, rules.languages) : undefined;
  const errors: SignupErrors = {};
  if (!email.ok) errors.email = shownText(email.problem, words);
  if (!description.ok) errors.description = shownText(description.problem, words);
  if (language?.ok === false) errors.language = shownText(language.problem, words);
  if (!email.ok) return { field: 'email', ...email, errors };
  if (!description.ok) return { field: 'description', ...description, errors };
  if (language?.ok === false) return { field: 'language', ...language, errors };
  const value: Signup = { email: email.value, description: description.value };
  // Where it came from is never a reason to refuse: bounded, what cannot be kept is left out.
  const source = boundSource(fields);
  if (source) value.source = source;
  return { ok: true, value: language ? { ...value, language: language.value } : value };
}

export function checkActivation(
  fields: Record<string, unknown>,
): Checked<{ email: string; key: string }, 'email' | 'key'> {
  const email = checkSignupEmail(fields.email);
  if (!email.ok) return { ok: false, field: 'email', error: email.error };
  const key = text(fields.key)?.trim() ?? '';
  if (!key) return { ok: false, field: 'key', error: `key: ${MESSAGES.required_}` };
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
