// Answers kept in memory: the prerendered pages, the static files and /healthz. Each is a body per
// encoding with every header worked out once (the fixed security headers included), so a request
// costs a lookup, one writeHead and one end: Node sends the head and the body in one write. What a
// browser or a cache may ask of such an answer is answered here too: If-None-Match (and
// If-Modified-Since where there is a Last-Modified) with a 304, one byte range with a 206 (416
// when none of it exists; several ranges get the whole body), HEAD without the body
// (docs/decisions/0032-answers-kept-in-memory.md).
import { createHash } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import fresh from 'fresh';
import parseRange from 'range-parser';
import { preferredEncoding, type Encoding } from './encodings';
import type { HeaderList } from './security-headers';

/** One body and the headers that go with it, flattened the way writeHead takes them. */
export interface KeptBody {
  body: Buffer;
  etag: string;
  lastModified?: string;
  /** name, value, name, value… for a 200 (the security headers, then the answer's own). */
  head: string[];
  /** What a 304 keeps of them: everything but the Content-Type, -Length and -Encoding. */
  notModifiedHead: string[];
  /** What a 206 keeps of them: everything but the Content-Length. */
  partialHead: string[];
}

/** An answer in every encoding it has: identity always. */
export interface KeptAnswer {
  variants: Partial<Record<Encoding, KeptBody>> & { identity: KeptBody };
  /** Whether a Range header is honoured (static files), or ignored (pages, probes). */
  ranges: boolean;
}

/**
 * A strong validator's opaque part, from the bytes themselves: the same on every replica of one
 * build. The caller quotes it (and may mark the encoding in it).
 */
export const bytesTag = (body: Buffer): string =>
  createHash('sha256').update(body).digest('base64url').slice(0, 22);

/** The path a kept answer is looked up by: the request's URL without its query string. */
export function urlPath(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/** What no 304 carries (RFC 9110 §15.4.5: the metadata of the representation is not resent). */
const CONTENT_FIELDS = new Set(['content-type', 'content-length', 'content-encoding']);

/**
 * A body with its headers: `security` first (every answer's, or a page's own), then `headers`;
 * ETag, Last-Modified and Content-Length are added from the body.
 */
export function keptBody(
  security: HeaderList,
  headers: OutgoingHttpHeaders,
  body: Buffer,
  etag: string,
  lastModified?: string,
): KeptBody {
  const own: [string, string][] = Object.entries(headers).map(([name, value]) => [
    name,
    String(value),
  ]);
  own.push(['ETag', etag]);
  if (lastModified) own.push(['Last-Modified', lastModified]);
  own.push(['Content-Length', String(body.length)]);
  const pairs = [...security.filter(([name]) => !(name in headers)), ...own];
  return {
    body,
    etag,
    lastModified,
    head: pairs.flat(),
    notModifiedHead: pairs.filter(([name]) => !CONTENT_FIELDS.has(name.toLowerCase())).flat(),
    partialHead: pairs.filter(([name]) => name !== 'Content-Length').flat(),
  };
}

/** Sends a kept answer, with the request's id first. */
export function sendKept(
  req: IncomingMessage,
  res: ServerResponse,
  requestId: string,
  answer: KeptAnswer,
): void {
  const encoding = preferredEncoding(req);
  const variant = answer.variants[encoding] ?? answer.variants.identity;
  const { headers } = req;
  if (
    (headers['if-none-match'] || headers['if-modified-since']) &&
    fresh(headers, { etag: variant.etag, 'last-modified': variant.lastModified })
  ) {
    res.writeHead(304, ['X-Request-Id', requestId, ...variant.notModifiedHead]);
    res.end();
    return;
  }
  if (
    answer.ranges &&
    headers.range &&
    rangeStillFits(headers['if-range'] as string | undefined, variant)
  ) {
    sendRange(req, res, requestId, variant, headers.range);
    return;
  }
  sendWhole(req, res, requestId, variant);
}

function sendWhole(
  req: IncomingMessage,
  res: ServerResponse,
  requestId: string,
  variant: KeptBody,
): void {
  res.writeHead(200, ['X-Request-Id', requestId, ...variant.head]);
  res.end(req.method === 'HEAD' ? undefined : variant.body);
}

/** If-Range names this body (its ETag, or its Last-Modified date), or is absent. */
function rangeStillFits(ifRange: string | undefined, variant: KeptBody): boolean {
  return !ifRange || ifRange === variant.etag || ifRange === variant.lastModified;
}

const UNSATISFIABLE = 'Range not satisfiable';

function sendRange(
  req: IncomingMessage,
  res: ServerResponse,
  requestId: string,
  variant: KeptBody,
  range: string,
): void {
  const size = variant.body.length;
  const ranges = parseRange(size, range, { combine: true });
  if (ranges === -1) {
    res.writeHead(416, [
      'X-Request-Id',
      requestId,
      ...variant.notModifiedHead,
      'Content-Type',
      'text/plain; charset=utf-8',
      'Content-Range',
      `bytes */${size}`,
      'Content-Length',
      String(UNSATISFIABLE.length),
    ]);
    res.end(req.method === 'HEAD' ? undefined : UNSATISFIABLE);
    return;
  }
  // A malformed header, or several ranges: the whole body, as if no range had been asked for.
  if (ranges === -2 || ranges.length !== 1) {
    sendWhole(req, res, requestId, variant);
    return;
  }
  const [{ start, end }] = ranges;
  const part = variant.body.subarray(start, end + 1);
  res.writeHead(206, [
    'X-Request-Id',
    requestId,
    ...variant.partialHead,
    'Content-Range',
    `bytes ${start}-${end}/${size}`,
    'Content-Length',
    String(part.length),
  ]);
  res.end(req.method === 'HEAD' ? undefined : part);
}
