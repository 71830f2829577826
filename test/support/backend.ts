// A real multer backend on 127.0.0.1, standing in for the subscription service. It records what
// it received (method, path, headers, parsed fields or raw body) and answers as a test tells it.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express, { type Request, type Response } from 'express';
import multer from 'multer';
import { reservePort } from '../../scripts/lib/launch/ports';

export interface Received {
  method: string;
  url: string;
  headers: Request['headers'];
  fields?: Record<string, unknown>;
  raw?: Buffer;
}

export type Responder = (req: Request, res: Response) => unknown;

export interface TestBackend {
  url: string;
  port: number;
  received: Received[];
  respondWith(responder: Responder): void;
  close(): Promise<void>;
}

const defaultResponder: Responder = (req, res) => {
  res.status(201).json({ ok: true, path: req.path });
};

export async function startBackend(port = 0): Promise<TestBackend> {
  const received: Received[] = [];
  let responder = defaultResponder;
  const app = express();
  const upload = multer().none();

  // A browser asks any origin it shows a page from for its icon, on its own and whenever it gets
  // to it: a tab on the web app's page (the backend stands in for it) may ask during the next
  // test. That is not the site talking to the backend, so it is answered and not recorded.
  app.get('/favicon.ico', (_req, res) => {
    res.status(404).end();
  });
  app.use((req, res, next) => {
    if (req.is('multipart/form-data')) {
      upload(req, res, (err) => {
        if (err) return res.status(400).json({ error: String(err) });
        received.push({
          method: req.method,
          url: req.originalUrl,
          headers: req.headers,
          fields: { ...req.body },
        });
        next();
      });
      return;
    }
    express.raw({ type: () => true, limit: '1mb' })(req, res, () => {
      received.push({
        method: req.method,
        url: req.originalUrl,
        headers: req.headers,
        raw: Buffer.isBuffer(req.body) ? req.body : undefined,
      });
      next();
    });
  });
  app.use((req, res) => responder(req, res));

  const server: Server = await new Promise((resolve) => {
    const s = app.listen(port, '127.0.0.1', () => resolve(s));
  });
  const actualPort = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${actualPort}`,
    port: actualPort,
    received,
    respondWith(next) {
      responder = next;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A port on 127.0.0.1 where nothing listens, for "the backend is down" cases. Taken from below
 * the kernel's ephemeral range: a port from freePort() can be handed out again meanwhile, to
 * another test's server or as the source port of our own connection (a TCP self-connect, which
 * then hangs instead of being refused). Reserved (ports.ts) for as long as this process runs, so
 * no other test starts a server on it; a test may start its own backend there later.
 */
export async function closedPort(): Promise<number> {
  const net = await import('node:net');
  for (;;) {
    const port = reservePort(20_000, 29_999);
    const refused = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(false);
      });
      socket.once('error', () => resolve(true));
    });
    if (refused) return port;
  }
}

/**
 * One backend for a test file: started before its first test, closed after its last, and what it
 * received cleared before each test (each test sets the answers it needs).
 */
export function backendForEachTest(): TestBackend {
  let started: TestBackend | undefined;
  beforeAll(async () => {
    started = await startBackend();
  });
  afterAll(() => started?.close());
  beforeEach(() => {
    backend().received.length = 0;
  });
  const backend = () => {
    if (!started) throw new Error('the backend starts in beforeAll: use it inside a test');
    return started;
  };
  return {
    get url() {
      return backend().url;
    },
    get port() {
      return backend().port;
    },
    get received() {
      return backend().received;
    },
    respondWith: (responder) => backend().respondWith(responder),
    close: () => backend().close(),
  };
}
