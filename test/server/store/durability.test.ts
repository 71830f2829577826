// Acknowledged means durable: a child-process server is killed with SIGKILL right after its
// acknowledgements, and everything it acknowledged is in the SQLite file afterwards.
import http from 'node:http';
import { openSqliteStore } from '../../../server/store';
import { closedPort, startBackend } from '../../support/backend';
import { tempDataDir } from '../../support/config';
import { postSignup } from '../../support/http';
import { startServerProcess, type ServerProcess } from '../../support/server-process';

const postForm = (port: number, email: string, agent: http.Agent) =>
  postSignup(
    port,
    `email=${encodeURIComponent(email)}&description=durable`,
    'application/x-www-form-urlencoded',
    agent,
  );

/**
 * Signs every address up at once over `sockets` connections, then kills the server with SIGKILL
 * the moment the last answer is in; returns the statuses it answered.
 */
async function postAllThenKill(server: ServerProcess, emails: string[], sockets: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
  const statuses = await Promise.all(emails.map((email) => postForm(server.port, email, agent)));
  server.child.kill('SIGKILL');
  await server.exited;
  agent.destroy();
  return statuses;
}

describe('durability under kill -9', () => {
  it('keeps every acknowledged signup of the embedded store', async () => {
    const dataDir = tempDataDir();
    const server = await startServerProcess({ DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
    const emails = Array.from({ length: 200 }, (_, i) => `durable${i}@example.org`);
    const statuses = await postAllThenKill(server, emails, 20);

    expect(statuses.every((s) => s === 201)).toBe(true);
    const store = openSqliteStore({ dataDir });
    try {
      expect(await store.signups.count()).toBe(200);
      expect(new Set((await store.signups.list()).map((r) => r.email))).toEqual(new Set(emails));
    } finally {
      void store.close();
    }
  });

  it('keeps every queued signup of the outbox, and delivers it after the restart', async () => {
    const dataDir = tempDataDir();
    const backendPort = await closedPort();
    const env = {
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      BACKEND_URL: `http://127.0.0.1:${backendPort}`,
    };
    const first = await startServerProcess(env);
    const emails = Array.from({ length: 20 }, (_, i) => `queued${i}@example.org`);
    const statuses = await postAllThenKill(first, emails, 10);
    expect(statuses.every((s) => s === 202)).toBe(true);

    const backend = await startBackend(backendPort);
    const second = await startServerProcess(env);
    try {
      const deadline = Date.now() + 15_000;
      while (backend.received.length < emails.length && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      expect(backend.received.map((r) => r.fields?.email).sort()).toEqual([...emails].sort());
      await new Promise((r) => setTimeout(r, 1500)); // one more worker round: nothing is sent twice
      expect(backend.received).toHaveLength(emails.length);
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
      await backend.close();
    }
  });
});
