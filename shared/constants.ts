// Business constants of the site (spec §9). Isomorphic: no React, no Node APIs.

/** Below this window width the phone preview is shown (spec §2, §9). */
export const PHONE_BREAKPOINT_PX = 768;

/** localStorage flag set once a waitlist submission finishes (spec §3, §4). */
export const SUBSCRIBED_STORAGE_KEY = 'subscribed';
export const SUBSCRIBED_STORAGE_VALUE = 'true';

/** The copyright year the footer shows (spec §1, §9). */
export const COPYRIGHT_YEAR = 2023;

/** The site's API client has no timeout (spec §7, §9): 0 means "wait as long as it takes". */
export const HTTP_TIMEOUT_MS = 0;

/** API paths of spec §7, relative to the page origin. */
export const API_PATHS = {
  subscriptions: '/api/subscriptions',
  subscriptionActivation: '/api/subscription-activation',
} as const;
