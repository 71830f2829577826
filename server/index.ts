// Entry point: read config, listen, and shut down gracefully on SIGTERM/SIGINT.
import './supported-node';
import './compile-cache';
import http, { type Server } from 'node:http';
import { createApp, type AppDeps } from './app';
import { readBackupStamp } from './backup-stamp';
import { ConfigError, loadConfig, type Config } from './config';
import { ensureWritableDataDir } from './data-dir';
import { createSiteLog, type Logger } from './logger';
import { isReady, watchOutbox } from './health';
import { createMetrics, NO_METRICS, type Metrics } from './metrics';
import { startMetricsServer } from './metrics-server';
import type { Store } from './store';
import { openStore } from './store/open';
import { startWorkers } from './workers';

/**
 * How long in-flight requests and sends may take after SIGTERM before they are cut off. Under
 * Docker's own stop timeout (10 s, then SIGKILL), with room left for the forced close, the store's
 * close and the "stopped" line.
 */
const SHUTDOWN_GRACE_MS = 8_000;

function startServer(
  config: Config,
  logger: Logger,
  store: Store,
  metrics: Metrics,
  deps: Pick<AppDeps, 'wakeMail' | 'wakeWebhooks' | 'outboxWatch'>,
): Promise<Server> {
  const server = http.createServer(
    {
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      // How often Node looks for clients over those limits; the default 30 s would let a
      // slow-loris client hold its socket half a minute longer.
      connectionsCheckingInterval: Math.min(5_000, Math.ceil(config.headersTimeoutMs / 4)),
    },
    createApp(config, { logger, store, metrics, ...deps }),
  );
  server.keepAliveTimeout = config.keepAliveTimeoutMs;
  return new Promise((resolve, reject) => {
    server.listen(config.port, config.host, () => resolve(server));
    server.once('error', reject);
  });
}

/**
 * Where the site's own mail goes, for the start-up line: never the SMTP URL, which holds a
 * password. With BACKEND_URL the site sends none (the backend owns the signups).
 */
function mailMode(config: Config): 'smtp' | 'files' | 'off' {
  if (config.backendUrl) return 'off';
  return config.smtpUrl ? 'smtp' : 'files';
}

/** Stops accepting, lets in-flight requests finish (up to the grace period), then resolves. */
function shutdown(server: Server): Promise<'clean' | 'forced'> {
  return new Promise((resolve) => {
    const force = setTimeout(() => {
      server.closeAllConnections();
      resolve('forced');
    }, SHUTDOWN_GRACE_MS);
    force.unref();
    server.close(() => {
      clearTimeout(force);
      resolve('clean');
    });
    // Idle keep-alive sockets would otherwise hold close() open until they time out.
    server.closeIdleConnections();
  });
}

async function main() {
  let config: Config;
  try {
    config = loadConfig();
    // SQLite and the .eml files live there; PostgreSQL with SMTP writes nothing to it.
    if (!config.databaseUrl || !config.smtpUrl) ensureWritableDataDir(config.dataDir);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  const { logger, drained: logDrained } = createSiteLog(config);
  const store = await openStore(config, logger);
  const metrics =
    config.metricsPort === undefined
      ? NO_METRICS
      : createMetrics({
          pending: {
            outbox: () => store.outbox.depth(),
            // Queued, and due to signups (confirmations and welcomes not written yet): all wait
            // for the mail worker.
            mail: async () =>
              (await store.mail.counts()).queued +
              (await store.signups.confirmationsDue()) +
              (await store.signups.welcomesDue()),
          },
          dead: {
            outbox: () => store.outbox.deadCount(),
            mail: async () => (await store.mail.counts()).dead,
          },
          confirmationsDue: () => store.signups.confirmationsDue(),
          webhooksDisabled: () => store.webhooks.disabledCount(),
          ready: () => isReady(store, config.databaseTimeoutMs),
          lastBackup: () => readBackupStamp(config.dataDir),
          logger,
        });
  // Before the public port: a metrics port already taken stops the start before any traffic.
  const metricsServer =
    config.metricsPort === undefined
      ? undefined
      : await startMetricsServer({
          port: config.metricsPort,
          host: config.metricsHost,
          metrics,
          logger,
        });
  const workers = startWorkers({ config, store, logger, metrics });
  // What /healthz reports, read before the first probe and then every second.
  const outboxWatch = watchOutbox(store.outbox);
  await outboxWatch.refresh();
  const stopWatching = outboxWatch.keepFresh();
  const server = await startServer(config, logger, store, metrics, { ...workers, outboxWatch });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info(
    {
      port,
      api: config.backendUrl ? 'proxy' : 'embedded',
      mail: mailMode(config),
      outbox: await store.outbox.depth(),
      mailQueued: (await store.mail.counts()).queued,
    },
    `OrgNote site listening on http://localhost:${port}`,
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    stopWatching();
    // The workers stop beside the HTTP drain, not after it, so the whole stop fits the grace an
    // orchestrator gives (Docker: 10 s; ours is 8).
    const [result] = await Promise.all([
      shutdown(server),
      workers.stop(SHUTDOWN_GRACE_MS),
      metricsServer?.close(),
    ]);
    await store.close();
    logger.info({ result }, 'stopped');
    // Every access-log line of the requests answered, and this one, before the process ends.
    await logDrained();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
