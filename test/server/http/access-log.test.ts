// What a log line may say about the path: never the query string (?email=…) and never an /api
// path's parameters (subscription-info names a person's account), in whatever spelling.
import { loggedPath } from '../../../server/http/access-log';

it.each([
  ['/', '/'],
  ['/activate?email=zoe%40example.org', '/activate'],
  ['/api/subscriptions', '/api/subscriptions'],
  ['/api/subscriptions?debug', '/api/subscriptions'],
  ['/api/subscription-info/github/zoe-4242', '/api/subscription-info/…'],
  ['/api/SUBSCRIPTION-INFO/github/zoe-4242/', '/api/SUBSCRIPTION-INFO/…'],
  ['/api/%73ubscription-info/github/zoe-4242', '/api/%73ubscription-info/…'],
  ['/api//subscription-info//github/zoe-4242', '/api//subscription-info/…'],
  ['/x'.repeat(150), `${'/x'.repeat(100)}…`],
])('%s is logged as %s', (url, logged) => {
  expect(loggedPath(url)).toBe(logged);
});
