// The API's own routes, recognised the way Express matched them (any letter case, one optional
// trailing slash) and through percent-encoding too, so no spelling of a form POST slips past
// the rate limit and the checks on its way to the backend.
import { API_PATHS } from '../../shared/constants';
import { MAX_DECODE_ROUNDS } from './safe-path';

export type ApiRoute = 'subscriptions' | 'activation';

/** True for every request the API answers: /api and anything under it. */
export function isApiUrl(url: string): boolean {
  return url === '/api' || url.startsWith('/api/') || url.startsWith('/api?');
}

/** Which route a path (already passed by isSafeApiPath, so it decodes) names, if any. */
export function routeOf(path: string): ApiRoute | undefined {
  let normal = path;
  // As many rounds as isSafeApiPath allows: a backend may decode more than once.
  for (let round = 0; round < MAX_DECODE_ROUNDS && normal.includes('%'); round++) normal = decodeURIComponent(normal);
  normal = normal.toLowerCase().replace(/\/$/, '');
  if (normal === API_PATHS.subscriptions) return 'subscriptions';
  if (normal === API_PATHS.subscriptionActivation) return 'activation';
  return undefined;
}
