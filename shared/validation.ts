// Validation rules and messages of docs/product.md §5, shared by the browser forms and the server.
// React-free so the server (native form POST, embedded store) checks exactly what the client
// checks. The messages are the page's language's (its catalog); English when none is given.
// '#messages/site' is English on the server and in tests, and the build's language in a browser
// (package.json "imports"), so a Russian page's script carries no English default.
import site from '#messages/site';
import type { SiteMessages } from './messages/types';

/** The two messages the rules show, in a page's language: its catalog's `site` part will do. */
export type ValidationMessages = Pick<SiteMessages, 'emailRequired_' | 'required_'>;

/** What a check says when no page's language is given: English (the spec's words) on a server. */
export const MESSAGES: ValidationMessages = site;

/**
 * docs/product.md §5: an e-mail address with no whitespace; this is the exact pattern.
 * Something@domain.tld with no whitespace and a single @; deliberately loose, the backend is the
 * authority on deliverability. The domain's labels cannot overlap, so matching takes linear time
 * whatever the input (no ReDoS).
 */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;

/** RFC 5321: no address is longer; checked before the pattern so huge input costs nothing. */
export const EMAIL_MAX_LENGTH = 254;

/**
 * Control characters (tab and line breaks aside), and U+FFFD (what undecodable bytes become):
 * never part of a real address or note. The product's pattern lets them through (they are not
 * whitespace), and PostgreSQL refuses a NUL in text outright, so every server check adds this.
 */
export const NOT_TEXT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\ufffd]/;

/**
 * Every control character, tab and line breaks too: never part of a one-line value the backend
 * sends (a provider's name, an account id, a key), and PostgreSQL refuses a NUL in text outright.
 */
export const NOT_ONE_LINE = /[\u0000-\u001f\u007f]/;

export type FieldErrors<K extends string> = Partial<Record<K, string>>;

/**
 * Checks one email value. Returns the message to show, '' for a pattern mismatch (product §5 sets
 * no message, but the field still gets the error style), or undefined when valid.
 */
export function checkEmail(
  value: string | undefined | null,
  m: ValidationMessages = MESSAGES,
): string | undefined {
  if (value == null || value === '') return m.emailRequired_;
  if (value.length > EMAIL_MAX_LENGTH || !EMAIL_PATTERN.test(value)) return '';
  return undefined;
}

function checkRequired(
  value: string | undefined | null,
  m: ValidationMessages,
): string | undefined {
  return value == null || value === '' ? m.required_ : undefined;
}

export interface WaitlistFields {
  email: string;
  description: string;
}

interface ActivationFields {
  email: string;
  key: string;
}

function collect<K extends string>(checks: Record<K, string | undefined>): FieldErrors<K> {
  const errors: FieldErrors<K> = {};
  for (const [field, message] of Object.entries(checks) as [K, string | undefined][]) {
    if (message !== undefined) errors[field] = message;
  }
  return errors;
}

/** docs/product.md §5, waitlist form: email required + pattern, description required. */
export function validateWaitlist(
  values: Partial<WaitlistFields>,
  m: ValidationMessages = MESSAGES,
): FieldErrors<keyof WaitlistFields> {
  return collect({
    email: checkEmail(values.email, m),
    description: checkRequired(values.description, m),
  });
}

/** docs/product.md §5, activation form: email required + pattern, key required. */
export function validateActivation(
  values: Partial<ActivationFields>,
  m: ValidationMessages = MESSAGES,
): FieldErrors<keyof ActivationFields> {
  return collect({ email: checkEmail(values.email, m), key: checkRequired(values.key, m) });
}

export function hasErrors(errors: object): boolean {
  return Object.keys(errors).length > 0;
}
