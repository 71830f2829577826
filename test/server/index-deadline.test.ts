// How soon the built server exits after SIGTERM with a request that never finishes: within the 10 s
// Docker (and Kubernetes) give before SIGKILL, its grace of 8 s included. A check of time, so it
// runs in the timed project (jest.config.js), alone; what it does on the way out is in
// index.test.ts.
import http from 'node:http';
import { startBackend, type TestBackend } from '../support/backend';
import { startServerProcess, type ServerProcess } from '../support/server-process';

let backend: TestBackend;
let server: ServerProcess | undefined;

beforeAll(async () => {
  backend = await startBackend();
});
afterAll(async () => {
  server?.child.kill('SIGKILL');
  await backend.close();
});

it('exits 0 within 9.5 s of SIGTERM while a request waits on the backend', async () => {
  let reached!: () => void;
  const waiting = new Promise<void>((resolve) => (reached = resolve));
  backend.respondWith(() => {
    reached();
    return new Promise(() => {});
  });
  server = await startServerProcess({ BACKEND_URL: backend.url, UPSTREAM_TIMEOUT_MS: '60000' });
  http.get(`${server.url}/api/stalled`, { agent: false }).on('error', () => {});
  await waiting;
  const started = Date.now();
  server.child.kill('SIGTERM');
  await expect(server.exited).resolves.toEqual({ code: 0, signal: null });
  expect(Date.now() - started).toBeLessThan(9_500);
});
