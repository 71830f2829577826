// forwardToBackend: relays one /api request to BACKEND_URL and the answer back unchanged.
import type { Request, Response } from 'express';
import { isMultipart, type FormFields } from './body';
import { toFieldList, toFormData } from './submission';

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

function connectionTokens(value: string | undefined): Set<string> {
  return new Set((value ?? '').split(',').map((t) => t.trim().toLowerCase()).filter(Boolean));
}

function isHopByHop(name: string, named: Set<string>): boolean {
  return HOP_BY_HOP.has(name) || name.startsWith('proxy-') || named.has(name);
}

function requestHeaders(req: Request, multipart: boolean): Headers {
  const named = connectionTokens(req.get('connection'));
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || isHopByHop(name, named)) continue;
    if (name.startsWith('x-forwarded-')) continue; // rebuilt below from what we trust
    if (multipart && name === 'content-type') continue; // FormData writes its own boundary
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  // The body is relayed byte for byte; compression toward the client is ours to do.
  headers.set('accept-encoding', 'identity');
  const chain = [...req.ips, req.socket.remoteAddress].filter(Boolean);
  headers.set('x-forwarded-for', chain.length ? chain.join(', ') : req.ip ?? '');
  headers.set('x-forwarded-proto', req.protocol);
  if (req.host) headers.set('x-forwarded-host', req.host);
  return headers;
}

function requestBody(req: Request): BodyInit | undefined {
  if (req.method === 'GET' || req.method === 'HEAD') return undefined;
  if (isMultipart(req)) return toFormData(toFieldList((req.body ?? {}) as FormFields));
  return Buffer.isBuffer(req.body) && req.body.length > 0 ? new Uint8Array(req.body) : undefined;
}

export interface UpstreamAnswer {
  status: number;
  headers: Headers;
  body: Buffer;
}

export class UpstreamTimeoutError extends Error {}
export class UpstreamUnreachableError extends Error {}
export class ClientGoneError extends Error {}

/**
 * Sends the request upstream. Resolves with the full answer; rejects with one of the errors above.
 * The call is cancelled when the client disconnects or the timeout passes.
 */
export async function callBackend(req: Request, res: Response, target: URL, timeoutMs: number): Promise<UpstreamAnswer> {
  const clientGone = new AbortController();
  const onClose = () => {
    if (!res.writableFinished) clientGone.abort();
  };
  res.on('close', onClose);
  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    const upstream = await fetch(target, {
      method: req.method,
      headers: requestHeaders(req, isMultipart(req)),
      body: requestBody(req),
      redirect: 'manual',
      signal: AbortSignal.any([clientGone.signal, timeout]),
    });
    const body = Buffer.from(await upstream.arrayBuffer());
    return { status: upstream.status, headers: upstream.headers, body };
  } catch (err) {
    if (clientGone.signal.aborted) throw new ClientGoneError('client disconnected');
    if (timeout.aborted) throw new UpstreamTimeoutError(`no answer within ${timeoutMs} ms`);
    throw new UpstreamUnreachableError((err as Error).cause ? String((err as Error).cause) : (err as Error).message);
  } finally {
    res.off('close', onClose);
  }
}

/** Relays an upstream answer: status, content-type and body unchanged, end-to-end headers kept. */
export function sendUpstreamAnswer(res: Response, answer: UpstreamAnswer): void {
  const named = connectionTokens(answer.headers.get('connection') ?? undefined);
  answer.headers.forEach((value, name) => {
    if (isHopByHop(name, named) || name === 'content-encoding') return;
    res.setHeader(name, value);
  });
  res.status(answer.status).end(answer.body);
}
