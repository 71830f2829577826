/** @jest-environment-options {"timed": true} */
// Slow clients are dropped: a slow-loris trickling headers, or a body that never finishes, is
// cut off by the server's timeouts while everyone else is served. Raw sockets on 127.0.0.1.
import net from 'node:net';
import { startServerProcess, type ServerProcess } from '../../support/server-process';

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
    const socket = net.connect(server.port, '127.0.0.1', () => socket.write(first));
    let answer = '';
    const timer = setInterval(() => {
      if (Date.now() - started > limitMs) {
        clearInterval(timer);
        socket.destroy();
        reject(new Error(`still open after ${limitMs} ms`));
      } else if (!socket.destroyed) socket.write(byte);
    }, everyMs);
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
      8000,
    );
    expect(closedAfterMs).toBeGreaterThanOrEqual(900);
    expect(closedAfterMs).toBeLessThan(4000);
    expect(answer === '' || answer.startsWith('HTTP/1.1 408')).toBe(true);
  });

  it('drops a client whose body never finishes', async () => {
    const head =
      'POST /api/subscriptions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{';
    const { closedAfterMs } = await trickle(head, ' ', 100, 8000);
    expect(closedAfterMs).toBeLessThan(5000);
  });

  it('keeps serving everyone else while a crowd of them holds connections open', async () => {
    let cutOff = 0;
    const crowd = Array.from({ length: 30 }, () =>
      trickle('GET / HTTP/1.1\r\nHost: localhost\r\nX-Slow: ', 'a', 100, 8000).then((result) => {
        cutOff++;
        return result;
      }),
    );
    const page = await fetch(`${server.url}/activate`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Enter your activation key');
    const signup = new FormData();
    signup.append('email', 'patient@example.org');
    expect(
      (await fetch(`${server.url}/api/subscriptions`, { method: 'POST', body: signup })).status,
    ).toBe(201);
    // Served while every slow client was still connected, not after the server dropped them.
    expect(cutOff).toBe(0);
    for (const { answer } of await Promise.all(crowd))
      expect(answer === '' || answer.startsWith('HTTP/1.1 408')).toBe(true);
  });
});
