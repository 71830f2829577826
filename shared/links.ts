// Every outside address the site links to, in one place (docs/product.md §1). The web app address
// is configurable (WEB_APP_URL) and so comes from the public config.
import type { PublicConfig } from './public-config';

const REPOSITORY = 'https://github.com/Artawower/orgnote';

export const STATIC_LINKS = {
  googlePlay: 'https://play.google.com/store/apps/details?id=com.artawower.orgnote',
  releases: `${REPOSITORY}/releases`,
  repository: REPOSITORY,
  issues: `${REPOSITORY}/issues`,
  email: 'mailto:artawower@protonmail.com',
  emailAddress: 'artawower@protonmail.com',
  social: 'https://twitter.com/artawower',
  chat: `${REPOSITORY}/discussions`,
  donation: 'https://www.patreon.com/artawower',
} as const;

export type SiteLinks = typeof STATIC_LINKS & { webApp: string };

function trimTrailingSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

export function siteLinks(config: PublicConfig): SiteLinks {
  return { ...STATIC_LINKS, webApp: trimTrailingSlash(config.webAppUrl) };
}

/**
 * docs/product.md §4: the activation tab opens the web app's /auth/activate with the email and the
 * typed key twice: as `token` (the product's name, and the form's field) and as `key` (the name the
 * OrgNote web app's activation page reads).
 */
export const ACTIVATION = {
  path: '/auth/activate',
  emailParam: 'email',
  keyParam: 'token',
  webAppKeyParam: 'key',
  /**
   * Our own route the no-JavaScript form posts to (fields email and token): a browser can't copy
   * one typed value into two fields, so the server answers 303 to activationUrl
   * (server/pages/activation-open.ts).
   */
  formAction: '/activate/open',
} as const;

export function activationUrl(webAppUrl: string, email: string, key: string): string {
  const params = new URLSearchParams({
    [ACTIVATION.emailParam]: email,
    [ACTIVATION.keyParam]: key,
    [ACTIVATION.webAppKeyParam]: key,
  });
  return `${trimTrailingSlash(webAppUrl)}${ACTIVATION.path}?${params.toString()}`;
}
