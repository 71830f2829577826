// The proxy's plumbing: relays one /api request to the backend as it came (end-to-end headers,
// the body byte for byte or multipart re-encoded after multer) and the answer back unchanged.
import type { IncomingHttpHeaders, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { isMultipart, toFieldList, type BodyRequest, type FormFields } from '../http/body';
import type { Client } from '../http/client';
import { withoutSiteCookies } from '../http/site-cookies';
import { callBackend, encodeMultipart, type BackendAnswer } from './client';

/** Hop-by-hop headers (RFC 9110 §7.6.1) plus those we recompute; never relayed either way. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'host',
  'content-length',
  'expect',
]);

/** The header names a Connection header lists; those are hop-by-hop too (RFC 9110 §7.6.1). */
function connectionTokens(value: string | string[] | undefined): Set<string> {
  const joined = Array.isArray(value) ? value.join(',') : (value ?? '');
  return new Set(
    joined
      .split(',')
      .map((t) => t.trim().toLowerCase())
      .filter(Boolean),
  );
}

function endToEnd(
  headers: IncomingHttpHeaders,
  also: (name: string) => boolean = () => false,
): [string, string | string[]][] {
  const named = connectionTokens(headers.connection);
  return Object.entries(headers).filter(
    (entry): entry is [string, string | string[]] =>
      entry[1] !== undefined &&
      !HOP_BY_HOP.has(entry[0]) &&
      !entry[0].startsWith('proxy-') &&
      !named.has(entry[0]) &&
      !also(entry[0]),
  );
}

/**
 * The other ways a client names its own address. X-Forwarded-* are rebuilt from what TRUST_PROXY
 * lets us believe; these the site cannot vouch for, and a backend that prefers one (many read
 * X-Real-IP first) would count a visitor's limits against whatever address the visitor chose.
 */
const CLIENT_ADDRESS_CLAIMS = new Set([
  'forwarded',
  'x-real-ip',
  'true-client-ip',
  'cf-connecting-ip',
  'x-client-ip',
  'x-cluster-client-ip',
]);

/** Request headers never passed on, besides the hop-by-hop ones. */
function notRelayed(name: string): boolean {
  // Content-Encoding: readBody has decoded the body it described (express.raw inflates gzip).
  return (
    name.startsWith('x-forwarded-') ||
    CLIENT_ADDRESS_CLAIMS.has(name) ||
    name === 'content-encoding'
  );
}

function requestHeaders(req: BodyRequest, client: Client): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = Object.fromEntries(endToEnd(req.headers, notRelayed));
  // The console's session id is ours: never a backend's to see (or log).
  const cookie =
    typeof headers.cookie === 'string' ? withoutSiteCookies(headers.cookie) : undefined;
  if (cookie) headers.cookie = cookie;
  else delete headers.cookie;
  // The body is relayed byte for byte; compression toward the client is ours to do.
  headers['accept-encoding'] = 'identity';
  return Object.assign(headers, client.forwarded);
}

/**
 * The body to send: multipart fields re-encoded (multer consumed the original), anything else as
 * received.
 */
function requestBody(req: BodyRequest, headers: OutgoingHttpHeaders): Buffer | undefined {
  if (req.method === 'GET' || req.method === 'HEAD') return undefined;
  if (isMultipart(req)) {
    const { body, contentType } = encodeMultipart(toFieldList((req.body ?? {}) as FormFields));
    headers['content-type'] = contentType;
    return body;
  }
  return Buffer.isBuffer(req.body) && req.body.length > 0 ? req.body : undefined;
}

/**
 * Sends the request to `target` and resolves with the full answer. Rejects with the backend
 * client's errors; the call is cancelled with ClientGoneError when the client disconnects.
 */
export function relayToBackend(
  req: BodyRequest,
  res: ServerResponse,
  client: Client,
  target: URL,
  timeoutMs: number,
): Promise<BackendAnswer> {
  const headers = requestHeaders(req, client);
  const body = requestBody(req, headers);
  const clientGone = new AbortController();
  const onClose = () => {
    if (!res.writableFinished) clientGone.abort();
  };
  res.on('close', onClose);
  return callBackend({
    url: target,
    method: req.method!,
    headers,
    body,
    timeoutMs,
    signal: clientGone.signal,
  }).finally(() => res.off('close', onClose));
}

/** What the backend says about its own software stays between us: we never advertise a stack. */
const NOT_RELAYED = new Set(['x-powered-by', 'server']);

/** Relays a backend answer: status, content-type and body unchanged, end-to-end headers kept. */
export function sendBackendAnswer(res: ServerResponse, answer: BackendAnswer): void {
  // Content-Encoding stays: the body is relayed as it came.
  for (const [name, value] of endToEnd(answer.headers, (name) => NOT_RELAYED.has(name)))
    res.setHeader(name, value);
  res.statusCode = answer.status;
  res.end(answer.body);
}
