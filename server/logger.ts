// Structured JSON logs. Requests are logged by method, path (never the query string, which can
// carry ?email=) and status; headers and bodies are never logged, so no e-mail address or form
// value reaches the log.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import pino, { type DestinationStream, type Logger } from 'pino';
import { pinoHttp } from 'pino-http';
import type { Config } from './config';

export type { Logger };

export function createLogger(config: Pick<Config, 'logLevel'>, destination?: DestinationStream): Logger {
  return pino({ level: config.logLevel, base: undefined }, destination);
}

function pathOnly(url: string | undefined): string {
  const path = (url ?? '').split('?')[0];
  // Long paths are scanner noise; cap them so one request can't flood the log.
  return path.length > 200 ? `${path.slice(0, 200)}…` : path;
}

export function requestLogger(logger: Logger) {
  return pinoHttp({
    logger,
    genReqId: (req: IncomingMessage) => randomUUID(),
    serializers: {
      req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, path: pathOnly(req.url) }),
      res: (res: { statusCode: number }) => ({ status: res.statusCode }),
      err: (err: Error) => ({ type: err.name, message: err.message }),
    },
    customLogLevel: (_req: IncomingMessage, res: ServerResponse, err?: Error) =>
      err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
    // The health probe runs every few seconds; logging it drowns real traffic.
    autoLogging: { ignore: (req: IncomingMessage) => req.url === '/healthz' },
  });
}
