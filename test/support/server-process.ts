// The built server for a test, started by the launcher (scripts/lib/launch/server.ts) with the
// tests' defaults: its DATA_DIR under the run's temporary folder, no signup rate limit (a test is
// one client sending many), the log at info.
import { releasePort, reservePort } from '../../scripts/lib/launch/ports';
import { startBuiltServer, type BuiltServer } from '../../scripts/lib/launch/server';
import { tempDataDir } from './config';

export type ServerProcess = BuiltServer;

export function startServerProcess(env: Record<string, string> = {}): Promise<ServerProcess> {
  return startBuiltServer({
    env: { LOG_LEVEL: 'info', DATA_DIR: tempDataDir(), SIGNUP_RATE_LIMIT: '0', ...env },
  });
}

/**
 * The built server with its metrics on a second port, for one describe block: the port is
 * reserved from its own band when the block is declared, and the server killed after the block.
 */
export function serverWithMetrics() {
  const metricsPort = reservePort(30_000, 30_999);
  let server: ServerProcess | undefined;
  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await server?.exited;
    releasePort(metricsPort);
  });
  return {
    metricsPort,
    async start(env: Record<string, string> = {}): Promise<ServerProcess> {
      server = await startServerProcess({
        METRICS_PORT: String(metricsPort),
        LOG_LEVEL: 'warn',
        ...env,
      });
      return server;
    },
  };
}
