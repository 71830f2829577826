// Business constants of the site (docs/product.md §9). Isomorphic: no React, no Node APIs.

/** Below this window width the phone preview is shown (docs/product.md §2, §9). */
export const PHONE_BREAKPOINT_PX = 768;

/** localStorage flag set once a waitlist submission finishes (docs/product.md §3, §4). */
export const SUBSCRIBED_STORAGE_KEY = 'subscribed';
export const SUBSCRIBED_STORAGE_VALUE = 'true';

/** The copyright year the footer shows (docs/product.md §1, §9). */
export const COPYRIGHT_YEAR = 2023;

/**
 * The site's API client has no timeout (docs/product.md §7, §9): 0 means "wait as long as it
 * takes".
 */
export const HTTP_TIMEOUT_MS = 0;

/** API paths of docs/product.md §7, relative to the page origin. */
export const API_PATHS = {
  subscriptions: '/api/subscriptions',
  subscriptionActivation: '/api/subscription-activation',
} as const;
