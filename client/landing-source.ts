// Where the visitor came from, on the browser's side (docs/decisions/0035). A page rendered for
// one request names it (the root route's loader data: its query, its Referer), and its links and
// the plain form carry it on. A page shared by everyone cannot, so there the script reads the
// landing's own query and document.referrer. Kept in memory for the signup this visit may send,
// across client-side navigation: no cookie, no storage.
import { useRouteLoaderData } from 'react-router';
import { landingSource, type SignupSource } from '../shared/sources';

let kept: SignupSource = {};

/** Called once as the script starts, before a client-side navigation changes the address. */
export function keepLandingSource(found: SignupSource | undefined): void {
  kept =
    found ??
    landingSource(new URLSearchParams(location.search), document.referrer, location.hostname);
}

/** Where a signup sent by the script came from. */
export const keptSource = (): SignupSource => kept;

/**
 * The page's source as the server found it: none on a page shared by everyone, or once a
 * client-side navigation left the page the server rendered.
 */
export function usePageSource(): SignupSource {
  return useRouteLoaderData<SignupSource>('root') ?? {};
}

/**
 * The query of a link of the site's own ('' or '?utm_source=…'): `search` (none unless given) with
 * the page's source in it, so a page load takes it to the next page.
 */
export function useSourceQuery(search = ''): string {
  const query = new URLSearchParams(search);
  for (const [name, value] of Object.entries(usePageSource())) query.set(name, value);
  const text = query.toString();
  return text && `?${text}`;
}
