// One request to one replica of the built site, on a connection of its own, so a replica killed
// mid-request resets exactly the requests it held (the chaos run, bench:webhooks). Any failure to
// get a whole answer (reset, refused, timed out) is an outcome like a status, never an exception:
// the caller counts those as unanswered.
import http from 'node:http';

export type Outcome =
  | { answered: true; status: number; headers: http.IncomingHttpHeaders; body: string }
  | { answered: false; error: string };

/** An answer slower than this is given up on and counted as unanswered ('timeout'). */
const TIMEOUT_MS = 20_000;

export function request(
  port: number,
  path: string,
  {
    method = 'GET',
    headers = {},
    body,
  }: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Outcome> {
  return new Promise((resolve) => {
    const sized =
      body === undefined
        ? headers
        : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
    const req = http.request(
      { host: '127.0.0.1', port, path, method, headers: sized, agent: false, timeout: TIMEOUT_MS },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            answered: true,
            status: res.statusCode!,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        // The status line came, the body did not: the process died while answering.
        res.on('error', (err: NodeJS.ErrnoException) =>
          resolve({ answered: false, error: err.code ?? 'aborted' }),
        );
        res.on('aborted', () => resolve({ answered: false, error: 'aborted' }));
      },
    );
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'timeout' })));
    req.on('error', (err: NodeJS.ErrnoException) =>
      resolve({ answered: false, error: err.code ?? err.message }),
    );
    req.end(body);
  });
}

/** A urlencoded form body, as a browser posts one. */
export function form(fields: Record<string, string>): {
  headers: Record<string, string>;
  body: string;
} {
  return {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  };
}
