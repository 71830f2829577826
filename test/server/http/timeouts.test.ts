// Slow clients are dropped: a slow-loris trickling headers, or a body that never finishes, is
// cut off by the server's timeouts while everyone else is served. Raw sockets on 127.0.0.1.
import net from 'node:net';
import { startServerProcess, type ServerProcess } from '../../support/server-process';

/** When a trickle stops waiting: ten times what the server gives any request. */
const GIVE_UP_MS = 15_000;

let server: ServerProcess;
beforeAll(async () => {
  server = await startServerProcess({
    KEEP_ALIVE_TIMEOUT_MS: '500',
    HEADERS_TIMEOUT_MS: '1000',
    REQUEST_TIMEOUT_MS: '1500',
    LOG_LEVEL: 'warn',
  });
});
afterAll(async () => {
  server.child.kill('SIGTERM');
  await server.exited;
});

/** Writes `first`, then one more byte every `everyMs`; resolves when the server ends the socket. */
function trickle(
  first: string,
  byte: string,
  everyMs: number,
  limitMs: number,
): Promise<{ closedAfterMs: number; answer: string }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let timer: NodeJS.Timeout | undefined;
    // The trickle starts once `first` is written: a byte queued before the connection is made
    // would go ahead of it (a malformed request, answered 400, on a machine slow to connect).
    const socket = net.connect(server.port, '127.0.0.1', () => {
      socket.write(first);
      timer = setInterval(() => {
        if (Date.now() - started > limitMs) {
          clearInterval(timer);
          socket.destroy();
          reject(new Error(`still open after ${limitMs} ms`));
        } else if (!socket.destroyed) socket.write(byte);
      }, everyMs);
    });
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ closedAfterMs: Date.now() - started, answer });
    });
  });
}

describe('slow clients', () => {
  it('drops a slow-loris that never finishes its headers', async () => {
    const { closedAfterMs, answer } = await trickle(
      'GET / HTTP/1.1\r\nHost: localhost\r\nX-Slow: ',
      'a',
      100,
      GIVE_UP_MS,
    );
    // Not before HEADERS_TIMEOUT_MS (the bytes trickling in do not restart it); that it is cut
    // off at all, rather than served until the trickle gives up, is the check.
    expect(closedAfterMs).toBeGreaterThanOrEqual(900);
    expect(answer === '' || answer.startsWith('HTTP/1.1 408')).toBe(true);
  });

  it('drops a client whose body never finishes', async () => {
    const head =
      'POST /api/subscriptions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{';
    // Cut off by REQUEST_TIMEOUT_MS: a server that waited for the body would outlast the trickle.
    await expect(trickle(head, ' ', 100, GIVE_UP_MS)).resolves.toBeDefined();
  });

  it('keeps serving everyone else while a crowd of them holds connections open', async () => {
    // Timeouts no crowded machine reaches during the two requests: the crowd must still be there.
    const patient = await startServerProcess({
      KEEP_ALIVE_TIMEOUT_MS: '500',
      HEADERS_TIMEOUT_MS: '60000',
      REQUEST_TIMEOUT_MS: '60000',
      LOG_LEVEL: 'warn',
    });
    const crowd = Array.from({ length: 30 }, () => slowClient(patient.port));
    try {
      await Promise.all(crowd.map((client) => client.connected));
      const page = await fetch(`${patient.url}/activate`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('Enter your activation key');
      const signup = new FormData();
      signup.append('email', 'patient@example.org');
      expect(
        (await fetch(`${patient.url}/api/subscriptions`, { method: 'POST', body: signup })).status,
      ).toBe(201);
      // Served while every slow client was still connected, not after the server dropped them.
      expect(crowd.filter((client) => client.socket.destroyed)).toEqual([]);
    } finally {
      for (const client of crowd) client.socket.destroy();
      patient.child.kill('SIGTERM');
      await patient.exited;
    }
  });
});

/** A client that sends half a request's headers, then one byte every 100 ms. */
function slowClient(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  let timer: NodeJS.Timeout | undefined;
  // The bytes follow the head once it is written: one queued before the connection is made would
  // go ahead of it ("aGET / …", answered 400 at once, on a machine slow to connect).
  const connected = new Promise((resolve) =>
    socket.once('connect', () => {
      resolve(socket.write('GET / HTTP/1.1\r\nX-Slow: '));
      timer = setInterval(() => socket.write('a'), 100);
    }),
  );
  socket.on('error', () => {});
  socket.once('close', () => clearInterval(timer));
  return { socket, connected };
}
