// The API's own routes, recognised in any letter case, with doubled or trailing slashes and
// through percent-encoding, so no spelling of a form POST slips past the rate limit and the
// checks on its way to the backend. The parameters of subscription-info keep their case.
import { API_PATHS } from '../../shared/constants';

export type ApiRoute = 'subscriptions' | 'activation' | 'subscription-info';

/** The routes a browser form posts to: rate-limited per client. */
export const FORM_ROUTES: ReadonlySet<ApiRoute | undefined> = new Set<ApiRoute>(['subscriptions', 'activation']);

const SUBSCRIPTION_INFO = '/api/subscription-info/';

/** True for every request the API answers: /api and anything under it. */
export function isApiUrl(url: string): boolean {
  return url === '/api' || url.startsWith('/api/') || url.startsWith('/api?');
}

/** `/api/subscription-info/{provider}/{externalId}`: the two parameters, or undefined. */
export function subscriptionInfoParams(decodedPath: string): { provider: string; externalId: string } | undefined {
  if (!decodedPath.toLowerCase().startsWith(SUBSCRIPTION_INFO)) return undefined;
  const params = decodedPath.slice(SUBSCRIPTION_INFO.length).split('/');
  if (params.length !== 2) return undefined;
  return { provider: params[0], externalId: params[1] };
}

/** Which route a path names, if any; `decodedPath` comes from decodeApiPath (no empty segments). */
export function routeOf(decodedPath: string): ApiRoute | undefined {
  const normal = decodedPath.toLowerCase();
  if (normal === API_PATHS.subscriptions) return 'subscriptions';
  if (normal === API_PATHS.subscriptionActivation) return 'activation';
  if (subscriptionInfoParams(decodedPath)) return 'subscription-info';
  return undefined;
}
