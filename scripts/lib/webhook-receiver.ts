// A webhook receiver on loopback for the webhook tests and bench:webhooks: it records each
// request (headers, the exact body, when it arrived and from which port) and each connection, and
// answers as the test says, at once or when the test's promise settles (a receiver that holds a
// delivery open). The signatures are checked by the tests with the standardwebhooks package, as a
// receiver in the wild would.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  headers: Record<string, string>;
  body: string;
  /** The sender's end of the connection: which process sent it, for the replica tests. */
  remotePort: number;
  /** Date.now() when the whole body had arrived. */
  at: number;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
}

export interface Receiver {
  url: string;
  port: number;
  received: ReceivedWebhook[];
  /** Connections accepted, whether or not a request followed. */
  connections: number;
  /**
   * How the next requests are answered (200 until told otherwise); a promise holds the request
   * open until it settles. An answer to a connection the sender has closed meanwhile is dropped.
   */
  answer: (received: ReceivedWebhook) => Answer | Promise<Answer>;
  close(): Promise<void>;
}

/** Listens on `host` (127.0.0.1) at `port` (any free one when absent). */
export async function startReceiver(
  options: { port?: number; host?: string; path?: string } = {},
): Promise<Receiver> {
  const host = options.host ?? '127.0.0.1';
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const headers = Object.fromEntries(
        Object.entries(request.headers).map(([name, value]) => [name, String(value)]),
      );
      const received = {
        headers,
        body: Buffer.concat(chunks).toString('utf8'),
        remotePort: request.socket.remotePort ?? 0,
        at: Date.now(),
      };
      receiver.received.push(received);
      void Promise.resolve(receiver.answer(received)).then((answer) => {
        if (!request.socket.destroyed) response.writeHead(answer.status, answer.headers).end();
      });
    });
  });
  server.on('connection', () => receiver.connections++);
  server.listen(options.port ?? 0, host);
  await new Promise((resolve) => server.once('listening', resolve));
  const port = (server.address() as AddressInfo).port;
  const receiver: Receiver = {
    url: `http://${host}:${port}${options.path ?? '/hooks'}`,
    port,
    received: [],
    connections: 0,
    answer: () => ({ status: 200 }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return receiver;
}
