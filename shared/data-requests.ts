// The contract of a person's own data (decision 0036): /privacy's form asks for a link by address
// and answers every address alike; the mail worker mails the link to a listed one. The link is
// SITE_URL/privacy/data#<token>: the token is in the fragment, which no browser sends, so no
// server or proxy logs it; the page puts it in its form, whose POST downloads the file once.

/** Where /privacy's form posts: /privacy itself, its answer shown in the form's own section. */
export const PRIVACY_PATH = '/privacy';

/** The id of the form's section on /privacy: the form posts there, so the answer is in view. */
export const DATA_REQUEST_SECTION = 'data-request';

/** The page the mailed link opens; its button posts the token here. */
export const DATA_PATH = '/privacy/data';

/** The download's form field holding the token (never a query parameter: decision 0036). */
export const DATA_TOKEN_FIELD = 'token';

/** How long a data link works; once used, it works no more. */
export const DATA_LINK_VALID_HOURS = 24;

/**
 * Asking for a data link is answered as asking for a leave link is: the same whether or not the
 * address is on the list; refused only for the form's fault (400) or the waitlist's (503).
 */
export type {
  LeaveLinkRefusal as DataLinkRefusal,
  LeaveLinkRequest as DataLinkRequest,
} from './address-links';
