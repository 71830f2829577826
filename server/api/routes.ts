// The API's own routes. The form routes are recognised in any letter case, with doubled or
// trailing slashes and through percent-encoding, so no spelling of a form POST slips past the
// rate limit and the checks on its way to the backend. subscription-info is read from the raw
// path instead: its parameters are ids of someone else's making, decoded exactly once, so every id
// (with '/', '%' or ';' in it) has one spelling and no spelling reaches another id.
import { API_PATHS } from '../../shared/constants';
import { CHALLENGE_PATH } from '../../shared/proof-of-work';
import { NOT_ONE_LINE } from '../../shared/validation';

export type ApiRoute = 'subscriptions' | 'activation' | 'subscription-info' | 'challenge';

/**
 * The POSTs the per-client rate limit counts. A signup always. An activation only on its way to a
 * backend: answered by the embedded store, its caller is the OrgNote backend, one address
 * activating for every user, and a 192-bit key needs no throttling against guessing.
 */
export function isRateLimited(route: ApiRoute | undefined, proxying: boolean): boolean {
  return route === 'subscriptions' || (route === 'activation' && proxying);
}

/** True for every request the API answers: /api and anything under it. */
export function isApiUrl(url: string): boolean {
  return url === '/api' || url.startsWith('/api/') || url.startsWith('/api?');
}

export interface SubscriptionInfoParams {
  provider: string;
  externalId: string;
}

/**
 * `/api/subscription-info/{provider}/{externalId}` (the route's name in any letter case): the two
 * parameters, each percent-decoded once; undefined for any other path or a malformed encoding.
 */
export function subscriptionInfoParams(rawPath: string): SubscriptionInfoParams | undefined {
  const segments = rawPath.split('/');
  if (
    segments.length !== 5 ||
    segments[1] !== 'api' ||
    segments[2].toLowerCase() !== 'subscription-info'
  )
    return undefined;
  const [provider, externalId] = segments.slice(3).map((segment) => {
    try {
      return decodeURIComponent(segment);
    } catch {
      return '';
    }
  });
  // No control characters: activation never binds such an id, and PostgreSQL refuses NUL outright.
  const plain = (text: string) => text !== '' && !NOT_ONE_LINE.test(text);
  return plain(provider) && plain(externalId) ? { provider, externalId } : undefined;
}

/** Which route a path names, if any; `decodedPath` comes from decodeApiPath (no empty segments). */
export function routeOf(decodedPath: string): ApiRoute | undefined {
  const normal = decodedPath.toLowerCase();
  if (normal === API_PATHS.subscriptions) return 'subscriptions';
  if (normal === API_PATHS.subscriptionActivation) return 'activation';
  if (normal === CHALLENGE_PATH) return 'challenge';
  return undefined;
}
