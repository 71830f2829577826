// A webhook receiver on loopback for the webhook tests: it records each request (headers and the
// exact body) and each connection, and answers as the test says. The signatures are checked by the
// tests with the standardwebhooks package, as a receiver in the wild would.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  headers: Record<string, string>;
  body: string;
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
  /** How the next requests are answered (200 until told otherwise). */
  answer: (received: ReceivedWebhook) => Answer;
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
      const received = { headers, body: Buffer.concat(chunks).toString('utf8') };
      receiver.received.push(received);
      const answer = receiver.answer(received);
      response.writeHead(answer.status, answer.headers).end();
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
