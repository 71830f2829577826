// HTTP calls to the backend (BACKEND_URL) over a keep-alive pool, with an overall timeout and
// cancellation. node:http rather than fetch: per call it costs a fraction of fetch's streams and
// signals, which is what keeps the proxy's p99 close to a direct call (npm run bench).
import { randomBytes } from 'node:crypto';
import http, { type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { FieldList, SignupRequest } from '../../shared/form-checks';

export type { SignupRequest };

export interface BackendAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * The backend's "not now" rather than "no": a 5xx, 408 Request Timeout or 429 Too Many Requests (a
 * backend catching up after an outage, its rate limiter meeting the outbox's batches). A signup so
 * answered is kept in the outbox and sent again; any other 4xx is the backend's verdict on it.
 */
export const isNotNow = (status: number): boolean =>
  status >= 500 || status === 408 || status === 429;

export class BackendTimeoutError extends Error {}
class BackendUnreachableError extends Error {}
export class ClientGoneError extends Error {}

/** The subscription service answers with small JSON; anything this big is a fault. */
const MAX_ANSWER_BYTES = 1024 * 1024;

const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 256 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 256 }),
};

/** Field names are escaped the way browsers do (WHATWG), values go as they are. */
const escapeName = (name: string) =>
  name.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');

/**
 * Boundaries: a random part per process start and a counter, so no value can be crafted to
 * contain one in advance, without asking the CSPRNG on every request (it showed in profiles).
 */
const boundaryPrefix = `----orgnote${randomBytes(12).toString('hex')}`;
let boundaryCount = 0;

/** multipart/form-data for text fields, with a boundary that occurs in no value. */
export function encodeMultipart(fields: FieldList): { body: Buffer; contentType: string } {
  let boundary: string;
  do boundary = `${boundaryPrefix}${(++boundaryCount).toString(36)}`;
  while (fields.some(([name, value]) => name.includes(boundary) || value.includes(boundary)));
  const parts = fields.map(
    ([name, value]) =>
      `--${boundary}\r\n` +
      `Content-Disposition: form-data; name="${escapeName(name)}"\r\n\r\n` +
      `${value}\r\n`,
  );
  return {
    body: Buffer.from(`${parts.join('')}--${boundary}--\r\n`, 'utf8'),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

interface BackendCall {
  url: URL;
  method: string;
  headers: OutgoingHttpHeaders;
  body?: Buffer;
  timeoutMs: number;
  /** Aborting it cancels the call with ClientGoneError. */
  signal?: AbortSignal;
}

/** Resolves with the full answer, or rejects with one of the three errors above. */
export function callBackend({
  url,
  method,
  headers,
  body,
  timeoutMs,
  signal,
}: BackendCall): Promise<BackendAnswer> {
  return new Promise((resolve, reject) => {
    const transport = url.protocol === 'https:' ? https : http;
    let failure: Error | undefined;
    const request = transport.request(url, {
      method,
      headers: body ? { ...headers, 'content-length': body.length } : headers,
      agent: agents[url.protocol as 'http:' | 'https:'],
    });
    const fail = (error: Error) => {
      failure ??= error;
      request.destroy(error);
    };
    const timer = setTimeout(
      () => fail(new BackendTimeoutError(`no answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const onAbort = () => fail(new ClientGoneError('client disconnected'));
    signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };

    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES)
          return fail(new BackendUnreachableError(`answer over ${MAX_ANSWER_BYTES} bytes`));
        chunks.push(chunk);
      });
      response.on('end', () => {
        done();
        resolve({
          status: response.statusCode ?? 502,
          headers: response.headers,
          body: Buffer.concat(chunks),
        });
      });
      response.on('error', (error) => {
        done();
        reject(failure ?? new BackendUnreachableError(error.message));
      });
    });
    request.on('error', (error) => {
      done();
      reject(failure ?? new BackendUnreachableError(error.message));
    });
    if (signal?.aborted) onAbort();
    request.end(body);
  });
}

export function postSignup(
  backendUrl: string,
  request: SignupRequest,
  timeoutMs: number,
): Promise<BackendAnswer> {
  const { body, contentType } = encodeMultipart(request.fields);
  return callBackend({
    url: new URL(`${backendUrl}${request.path}`),
    method: 'POST',
    headers: {
      ...request.forwarded,
      'content-type': contentType,
      accept: 'application/json',
      'idempotency-key': request.idempotencyKey,
    },
    body,
    timeoutMs,
  });
}
