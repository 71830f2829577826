// The metrics listener (METRICS_PORT): a second node:http server answering only GET /metrics, so
// the public port never serves it and needs no rule to hide it. It has no login: bind it to a
// private address (METRICS_HOST, loopback by default) or keep the port off the public network.
// No access log either: a scrape every few seconds is not traffic.
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from './logger';
import type { Metrics } from './metrics';

interface MetricsServerOptions {
  port: number;
  host: string;
  metrics: Pick<Metrics, 'text' | 'contentType'>;
  logger: Logger;
}

export interface MetricsServer {
  server: Server;
  /** The port it listens on (the one the OS chose when given 0). */
  port: number;
  close(): Promise<void>;
}

function sendText(
  res: http.ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Cache-Control': 'no-store',
    'Content-Length': Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

export function startMetricsServer({
  port,
  host,
  metrics,
  logger,
}: MetricsServerOptions): Promise<MetricsServer> {
  const answer = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (req.url?.split('?')[0] !== '/metrics') return sendText(res, 404, 'Not found\n');
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return sendText(res, 405, 'Method not allowed\n', { Allow: 'GET, HEAD' });
    try {
      sendText(res, 200, await metrics.text(), { 'Content-Type': metrics.contentType });
    } catch (err) {
      logger.error({ err }, 'metrics scrape failed');
      sendText(res, 500, 'Metrics unavailable\n');
    }
  };
  // answer() catches its own failures.
  const server = http.createServer((req, res) => void answer(req, res));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      // From here a fault of this side listener is logged, never a crash of the site.
      server.on('error', (err) => logger.error({ err }, 'metrics listener failed'));
      const bound = (server.address() as AddressInfo).port;
      logger.info({ host, port: bound }, 'metrics listening');
      resolve({
        server,
        port: bound,
        // A scrape cut short at shutdown costs nothing, so nothing waits for one.
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
