// Plain node:http requests for what supertest hides: the raw (still compressed) bytes, chunk
// timing and request paths it would normalise.
import http, { type IncomingHttpHeaders, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** ms after the request was sent at which each chunk arrived */
  chunkTimes: number[];
}

export async function listen(app: RequestListener): Promise<{ server: Server; port: number }> {
  const server = http.createServer(app).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

export function rawRequest(
  port: number,
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
  body?: string,
  agent?: http.Agent | false,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const sized =
      body === undefined
        ? headers
        : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
    const options = { host: '127.0.0.1', port, path, method, headers: sized, agent };
    const req = http.request(options, (res) => {
      const chunks: Buffer[] = [];
      const chunkTimes: number[] = [];
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        chunkTimes.push(Date.now() - started);
      });
      res.on('end', () =>
        resolve({
          status: res.statusCode!,
          headers: res.headers,
          body: Buffer.concat(chunks),
          chunkTimes,
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** One raw POST against an app on an ephemeral port, the path sent exactly as written. */
export async function rawPost(
  app: RequestListener,
  path: string,
  body: string,
  contentType: string,
): Promise<RawResponse> {
  const { server, port } = await listen(app);
  try {
    return await rawRequest(port, path, { 'content-type': contentType }, 'POST', body);
  } finally {
    server.close();
  }
}

/** One raw GET against an app on an ephemeral port. */
export async function rawGet(
  app: RequestListener,
  path: string,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  const { server, port } = await listen(app);
  try {
    return await rawRequest(port, path, headers);
  } finally {
    server.close();
  }
}

/** One POST of `body` to /api/subscriptions over `agent`; resolves with the status code. */
export function postSignup(
  port: number,
  body: string,
  contentType: string,
  agent: http.Agent,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/api/subscriptions',
        method: 'POST',
        agent,
        headers: { 'content-type': contentType, 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The statuses of `count` requests, each sent once the one before has been answered. */
export async function statusesInTurn(
  count: number,
  send: () => PromiseLike<{ status: number }>,
): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) statuses.push((await send()).status);
  return statuses;
}
