// The contract between the address pages (/confirm and /leave) and the server that
// answers them. The links come from mail: SITE_URL/confirm?token=… confirms an address (double
// opt-in), SITE_URL/leave?token=… takes it off the waitlist (also the List-Unsubscribe URL of every
// mail, RFC 8058). A GET only shows a page with one button; only the POST acts, so a mail scanner
// that follows links changes nothing. /leave without a token asks for a leave link by address.

export const CONFIRM_PATH = '/confirm';
export const LEAVE_PATH = '/leave';

/**
 * The query parameter (GET, and the one-click POST) or form field (the pages' buttons) holding the
 * token.
 */
export const TOKEN_PARAM = 'token';

/**
 * RFC 8058: the body a one-click unsubscribe POST carries; the leave page's button sends it too.
 */
export const ONE_CLICK_FIELD = 'List-Unsubscribe';
export const ONE_CLICK_VALUE = 'One-Click';

/** The address field of the form on /leave that asks for a leave link. */
export const LEAVE_EMAIL_FIELD = 'email';

export type LinkPurpose = 'confirm' | 'leave';

/**
 * Why a link does nothing: no token or not one of ours in shape (400), unknown or meant for the
 * other page (404), past its time (410), or used already (410: a confirmation link confirms once).
 */
export type LinkRefusal = 'malformed' | 'invalid' | 'expired' | 'spent';

export const REFUSAL_STATUS: Record<LinkRefusal, number> = {
  malformed: 400,
  invalid: 404,
  expired: 410,
  spent: 410,
};

/**
 * A link checked without being used (the GET). `subscriptionActive`: leaving also ends a free
 * subscription.
 */
export type LinkCheck =
  { ok: true; subscriptionActive: boolean } | { ok: false; refusal: LinkRefusal };

/** A link used (the POST). */
export type LinkUse = { ok: true } | { ok: false; refusal: LinkRefusal };

/**
 * Why asking for a leave link was refused: the form's own fault (no address, not an address: 400)
 * or the waitlist's (the mail queue is full, the store is away: 503, try again). The page words it.
 */
export type LeaveLinkRefusal = 'required' | 'not-an-address' | 'busy' | 'unavailable';

/** Asking for a leave link: the same answer whether or not the address is on the list. */
export type LeaveLinkRequest =
  { ok: true } | { ok: false; email: string; refusal: LeaveLinkRefusal; status: number };

/**
 * What the server hands the address routes' loaders and actions as their context
 * (server/pages/address-pages.ts).
 */
export interface AddressPagesContext {
  /** GET /confirm?token= or /leave?token=: is the link good, without using it. */
  checkLink(purpose: LinkPurpose): Promise<LinkCheck>;
  /** POST /confirm (token in the form). */
  confirm(form: FormData): Promise<LinkUse>;
  /** POST /leave with a token (query or form) and List-Unsubscribe=One-Click. */
  leave(form: FormData): Promise<LinkUse>;
  /** POST /leave with an address and no token. */
  requestLeaveLink(form: FormData): Promise<LeaveLinkRequest>;
  /** POST /privacy with an address: a data link (shared/data-requests.ts). */
  requestDataLink(form: FormData): Promise<LeaveLinkRequest>;
  /**
   * POST /privacy/data that downloaded nothing: why (the server sent the file when the link was
   * good, and the page is not rendered then).
   */
  dataLinkRefusal(): LinkRefusal;
}
