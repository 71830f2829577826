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
  /**
   * Writes out what is still buffered, in order, before the process exits: a write already under
   * way finishes first, then the rest follows it.
   */
  close(): Promise<void>;
}

/**
 * The site's log on standard output, through an asynchronous destination: the lines of a spike
 * are buffered while the previous write is under way, so many cost one write instead of one each
 * (npm run bench). What is buffered is written out before the process ends: `close`, which the
 * stop on SIGTERM and SIGINT awaits (server/index.ts), and pino's own hook on any other exit.
 */
export function createSiteLog(config: Pick<Config, 'logLevel'>): SiteLog {
  const destination = pino.destination({ dest: 1, sync: false });
  return {
    logger: createLogger(config, destination),
    close() {
      // A synchronous flush here would overtake a write already handed to the thread pool, and the
      // older lines of that write would land after the last one. Ending waits for it.
      return new Promise((resolve) => {
        destination.once('close', resolve);
        // Standard output gone (EPIPE): nothing more can be written.
        destination.once('error', () => resolve());
        destination.end();
      });
    },
  };
}
