// callBackend: relays one /api request to BACKEND_URL and the answer back unchanged.
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { forwardedHeaders, type TrustProxy } from '../forwarded';
import { isMultipart, type FormFields } from './body';
import type { ApiRequest } from './http';
import { toFieldList } from './submission';
import { callUpstream, encodeMultipart, type UpstreamAnswer } from './upstream';

/** Hop-by-hop headers (RFC 9110 §7.6.1) plus those we recompute; never forwarded either way. */
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
  return new Set(joined.split(',').map((t) => t.trim().toLowerCase()).filter(Boolean));
}

function isHopByHop(name: string, named: Set<string>): boolean {
  return HOP_BY_HOP.has(name) || name.startsWith('proxy-') || named.has(name);
}

function requestHeaders(req: ApiRequest, trust: TrustProxy): OutgoingHttpHeaders {
  const named = connectionTokens(req.headers.connection);
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || isHopByHop(name, named)) continue;
    if (name.startsWith('x-forwarded-')) continue; // rebuilt below from what we trust
    headers[name] = value;
  }
  // The body is relayed byte for byte; compression toward the client is ours to do.
  headers['accept-encoding'] = 'identity';
  Object.assign(headers, forwardedHeaders(req, trust));
  return headers;
}

/** The body to send: multipart fields re-encoded (multer consumed the original), anything else as received. */
function requestBody(req: ApiRequest, headers: OutgoingHttpHeaders): Buffer | undefined {
  if (req.method === 'GET' || req.method === 'HEAD') return undefined;
  if (isMultipart(req)) {
    const { body, contentType } = encodeMultipart(toFieldList((req.body ?? {}) as FormFields));
    headers['content-type'] = contentType;
    return body;
  }
  return Buffer.isBuffer(req.body) && req.body.length > 0 ? req.body : undefined;
}

export interface BackendCall {
  target: URL;
  timeoutMs: number;
  /** Which hops' X-Forwarded-* to believe when passing the client's address on. */
  trust: TrustProxy;
}

/**
 * Sends the request upstream and resolves with the full answer. Rejects with
 * UpstreamTimeoutError or UpstreamUnreachableError; given `res`, the call is cancelled with
 * ClientGoneError when that client disconnects (a signup passes none: it finishes regardless).
 */
export function callBackend(req: ApiRequest, { target, timeoutMs, trust }: BackendCall, res?: ServerResponse): Promise<UpstreamAnswer> {
  const headers = requestHeaders(req, trust);
  const body = requestBody(req, headers);
  if (!res) return callUpstream({ url: target, method: req.method!, headers, body, timeoutMs });
  const clientGone = new AbortController();
  const onClose = () => {
    if (!res.writableFinished) clientGone.abort();
  };
  res.on('close', onClose);
  return callUpstream({ url: target, method: req.method!, headers, body, timeoutMs, signal: clientGone.signal }).finally(() =>
    res.off('close', onClose),
  );
}

/** What the backend says about its own software stays between us: we never advertise a stack. */
const NOT_RELAYED = new Set(['x-powered-by', 'server']);

/** Relays an upstream answer: status, content-type and body unchanged, end-to-end headers kept. */
export function sendUpstreamAnswer(res: ServerResponse, answer: UpstreamAnswer): void {
  const named = connectionTokens(answer.headers.connection);
  for (const [name, value] of Object.entries(answer.headers)) {
    // Content-Encoding stays: the body is relayed as it came, and compression skips encoded bodies.
    if (value === undefined || isHopByHop(name, named) || NOT_RELAYED.has(name)) continue;
    res.setHeader(name, value);
  }
  res.statusCode = answer.status;
  res.end(answer.body);
}
