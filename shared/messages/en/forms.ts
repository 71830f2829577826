// English messages only the server words, never a browser: the page a browser gets when a form it
// posted cannot be taken (server/pages/error-page.ts), and the refusals of checks only the server
// makes. The API answers the same refusals in English, whatever the page's language.
export default {
  title_: 'Could not send the form · OrgNote',
  heading_: 'Could not send the form',
  backToWaitlist_: 'Back to the waitlist',
  /** Why a form was turned away, by the reason its error carries (server/http/errors.ts). */
  reasons_: {
    rateLimited_: 'Too many submissions; please try again in a minute',
    crossSite_: 'Cross-site form submissions are not accepted',
    fileUpload_: 'File uploads are not accepted',
    tooManyParts_: 'Too many form parts',
    tooManyFields_: 'Too many form fields',
    fieldTooLong_: 'A form field is too long',
    fieldNameTooLong_: 'A form field name is too long',
    malformed_: 'Malformed form data',
    tooLarge_: 'Request body too large',
    aborted_: 'Request aborted',
    unreadable_: 'Unreadable request body',
    outboxFull_: 'Too many signups are waiting for the backend; please try again later',
    mailFull_: 'Too many invitations are waiting to be sent',
    storeUnavailable_: 'The waitlist is unavailable right now; please try again shortly',
  },
  // Under a field of the plain form: what the browser's checks let through.
  emailNotOne_: 'Email must be a single text value',
  emailTooLong_: (max: number) => `Email address is longer than ${max} characters`,
  descriptionNotOne_: 'Description must be a single text value',
  descriptionNotText_: 'Description contains characters that are not text',
  /** A `language` field naming no language of the site: a program's mistake, not a person's. */
  languageUnknown_: 'The page sent an unknown language. Please reload it and try again',
} as const;
