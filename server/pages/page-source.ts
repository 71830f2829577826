// Where the visitor of a page for one request came from (docs/decisions/0035): the landing's query
// (a link's utm_*, or what the site's own links carried from the page before) and its Referer's
// host when another site sent it; on the plain form's answer, the hidden fields it was sent with.
// Bounded as the store keeps it, since the page renders it into links and hidden inputs. A page
// shared by everyone (prerendered.ts) never asks: its bytes are the same for every visitor.
import type { IncomingMessage } from 'node:http';
import { boundSource, landingSource, type SignupSource } from '../../shared/sources';
import { fieldsOfPairs, type BodyRequest } from '../http/body';

/** The host of the site's origin ('' when it is none: then every Referer is another site's). */
function hostOf(origin: string): string {
  try {
    return new URL(origin).hostname;
  } catch {
    return '';
  }
}

export function pageSource(req: IncomingMessage, ownOrigin: string): SignupSource {
  const posted = (req as BodyRequest).body;
  // The plain form's answer: its Referer is our own page, its query names the form's action.
  if (posted instanceof URLSearchParams) return boundSource(fieldsOfPairs(posted)) ?? {};
  const url = req.url ?? '';
  const at = url.indexOf('?');
  const query = new URLSearchParams(at < 0 ? '' : url.slice(at + 1));
  return boundSource(landingSource(query, req.headers.referer, hostOf(ownOrigin))) ?? {};
}
