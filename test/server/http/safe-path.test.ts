// The API path guard: every spelling of a route is recognised (so none slips past the rate limit
// and the checks), and no spelling can leave /api/ on its way to the backend, however many times
// someone along the way decodes it.
import { routeOf } from '../../../server/api/routes';
import { backendTarget, decodeApiPath } from '../../../server/http/safe-path';

describe('decodeApiPath', () => {
  it.each([
    ['/api/subscriptions', '/api/subscriptions'],
    ['/api//subscriptions', '/api/subscriptions'],
    ['/api/subscriptions/', '/api/subscriptions'],
    ['/api/%73ubscriptions', '/api/subscriptions'],
    ['/api/%2573ubscriptions', '/api/subscriptions'],
    ['/api/subscription-activation', '/api/subscription-activation'],
    ['/api', '/api'],
    ['/api/notes/42', '/api/notes/42'],
  ])('decodes %s to %s', (raw, decoded) => {
    expect(decodeApiPath(raw)).toBe(decoded);
  });

  it.each([
    ['a dot-dot segment', '/api/../admin'],
    ['an encoded dot-dot', '/api/%2e%2e/admin'],
    ['a double-encoded dot-dot', '/api/%252e%252e/admin'],
    ['an encoded slash', '/api/a%2fb'],
    ['a backslash', '/api\\..\\admin'],
    ['an encoded backslash', '/api/%5c..%5cadmin'],
    ['a NUL byte', '/api/a%00b'],
    ['a matrix parameter', '/api/..;/admin'],
    ['a single dot', '/api/./subscriptions'],
    ['malformed percent-encoding', '/api/%zz'],
    ['encoding nested past the limit', `/api/${'%25'.repeat(9)}73`],
    ['a path outside /api', '/apix/subscriptions'],
  ])('refuses %s', (_name, raw) => {
    expect(decodeApiPath(raw)).toBeNull();
  });
});

describe('routeOf', () => {
  it.each([
    ['/api/subscriptions', 'subscriptions'],
    ['/API/Subscriptions', 'subscriptions'],
    ['/api/subscription-activation', 'activation'],
    ['/api/notes', undefined],
  ])('%s is the %s route', (path, route) => {
    expect(routeOf(path)).toBe(route);
  });
});

describe('backendTarget', () => {
  it.each([
    [
      'http://backend:4000',
      '/api/subscriptions?ref=x',
      'http://backend:4000/api/subscriptions?ref=x',
    ],
    ['http://backend:4000/v1', '/api/notes', 'http://backend:4000/v1/api/notes'],
  ])('%s + %s is %s', (base, url, target) => {
    expect(backendTarget(base, url)?.href).toBe(target);
  });

  it.each(['/api/../admin', '/api/./../admin', '//evil.example/api/x'])(
    'refuses %s, which would leave the backend’s /api',
    (url) => {
      expect(backendTarget('http://backend:4000', url)).toBeNull();
    },
  );
});
