// Structured JSON logs (pino). What may be logged is decided where each line is written: never
// an e-mail address, a form value, a key or a token (see http/access-log.ts for requests).
import pino, { type DestinationStream, type Logger } from 'pino';
import type { Config } from './config';

export type { Logger };

export function createLogger(
  config: Pick<Config, 'logLevel'>,
  destination?: DestinationStream,
): Logger {
  return pino({ level: config.logLevel, base: undefined }, destination);
}

/** The running site's log: standard output, written asynchronously. */
export interface SiteLog {
  logger: Logger;
  /** Writes out what is still buffered, before the process exits. */
  flush(): void;
}

/**
 * The site's log on standard output, through an asynchronous destination: the lines of a spike
 * are buffered while the previous write is under way, so many cost one write instead of one each
 * (npm run bench). What is buffered is written out before the process ends: `flush`, which the
 * stop on SIGTERM and SIGINT calls (server/index.ts), and pino's own hook on any other exit.
 */
export function createSiteLog(config: Pick<Config, 'logLevel'>): SiteLog {
  const destination = pino.destination({ dest: 1, sync: false });
  return {
    logger: createLogger(config, destination),
    flush() {
      try {
        destination.flushSync();
      } catch {
        // Standard output is gone (EPIPE): nothing more can be written.
      }
    },
  };
}
