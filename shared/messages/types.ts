// The catalog's shape: English is the reference (shared/messages/en/), and every other language
// is checked against it by type (a missing or extra key does not compile) and by
// test/shared/messages.test.ts. A message is a string, or a function where a number or a name
// meets the words (plural forms through Intl.PluralRules). Every key ends in '_': the browser
// build shortens such names like variables (esbuild's mangleProps, scripts/build.ts), so a key
// costs a page almost nothing.
import type site from './en/site';
import type forms from './en/forms';
import type activate from './en/activate';
import type privacy from './en/privacy';
import type confirm from './en/confirm';
import type leave from './en/leave';
import type data from './en/data';

/** English literals widened to what another language may say instead. */
export type Widen<T> = {
  [K in keyof T]: T[K] extends string
    ? string
    : T[K] extends (...args: infer A) => infer R
      ? (...args: A) => R
      : Widen<T[K]>;
};

/** What every page needs: header, footer, landing page, waitlist form, errors. */
export type SiteMessages = Widen<typeof site>;
/** What only the server words: the form error page, the refusals of its own checks. */
export type FormMessages = Widen<typeof forms>;
/** The lazy pages' own parts: each travels in its page's chunk, in the page's language only. */
export type ActivateMessages = Widen<typeof activate>;
export type PrivacyMessages = Widen<typeof privacy>;
export type ConfirmMessages = Widen<typeof confirm>;
export type LeaveMessages = Widen<typeof leave>;
export type DataMessages = Widen<typeof data>;

export interface LazyParts {
  activate: ActivateMessages;
  privacy: PrivacyMessages;
  confirm: ConfirmMessages;
  leave: LeaveMessages;
  data: DataMessages;
}
export type LazyPart = keyof LazyParts;

/**
 * A language's messages. The server holds every part of every language; a browser holds its page's
 * language only, `site` from its entry and a lazy part once its page is loaded, and never `forms`.
 */
export type Catalog = { site: SiteMessages; forms?: FormMessages } & Partial<LazyParts>;
