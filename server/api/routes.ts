// The API's own routes, recognised in any letter case, with doubled or trailing slashes and
// through percent-encoding, so no spelling of a form POST slips past the rate limit and the
// checks on its way to the backend.
import { API_PATHS } from '../../shared/constants';

export type ApiRoute = 'subscriptions' | 'activation';

/** True for every request the API answers: /api and anything under it. */
export function isApiUrl(url: string): boolean {
  return url === '/api' || url.startsWith('/api/') || url.startsWith('/api?');
}

/** Which route a path names, if any; `decodedPath` comes from decodeApiPath (no empty segments). */
export function routeOf(decodedPath: string): ApiRoute | undefined {
  const normal = decodedPath.toLowerCase();
  if (normal === API_PATHS.subscriptions) return 'subscriptions';
  if (normal === API_PATHS.subscriptionActivation) return 'activation';
  return undefined;
}
