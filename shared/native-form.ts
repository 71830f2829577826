// The contract between the no-JavaScript waitlist form (a native POST to /?index, handled by the
// index route's action on the server) and the server that records it.
import type { FieldErrors, WaitlistFields } from './validation';

export type WaitlistSubmission =
  | { ok: true }
  /** `status`: 400 unless said (503 when the waitlist cannot take signups right now). */
  | {
      ok: false;
      values: WaitlistFields;
      errors: FieldErrors<keyof WaitlistFields>;
      status?: number;
      /**
       * Nothing was wrong with the fields, but the form's issue time was too recent, too old or
       * used up (PROOF_OF_WORK): the visitor only needs to press Join again.
       */
      reissued?: true;
    };

/** The server's side of the native form: records the form the action read, says how it went. */
export type SubmitWaitlistForm = (form: FormData) => Promise<WaitlistSubmission>;

/** After a native submission the visitor lands on /?joined, which shows the joined view. */
export const JOINED_PARAM = 'joined';

/**
 * Where the native form posts, under its language's prefix ('/ru/?index'): '?index' makes React
 * Router pick the index route's action.
 */
export const WAITLIST_FORM_ACTION = '/?index';

/**
 * The signup's language, the page's (shared/i18n/languages.ts), which its mail is written in: sent
 * by a page that is not English, by the API client and the plain form alike; left out, English.
 */
export const LANGUAGE_FIELD = 'language';

/**
 * The form's signed issue time, with PROOF_OF_WORK on (server/guard/issued-field.ts): a form
 * without JavaScript proves time instead of work.
 */
export const ISSUED_FIELD = 'issued';

/** The index route's loader data: the issue time its form carries, when the guard asks for one. */
export interface WaitlistLoaded {
  issued?: string;
}
