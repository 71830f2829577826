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
   * Resolves once every line logged so far is written, in order: the last thing before the process
   * exits.
   */
  drained(): Promise<void>;
}

/** Past this, what is still buffered is written synchronously (standard output is stuck). */
const DRAIN_GUARD_MS = 1_000;

/**
 * The site's log on standard output, through an asynchronous destination: the lines of a spike
 * are buffered while the previous write is under way, so many cost one write instead of one each
 * (npm run bench). What is buffered is written out before the process ends: the stop on SIGTERM
 * and SIGINT waits for `drained` (server/index.ts), and pino's own hook flushes on any other exit.
 */
export function createSiteLog(config: Pick<Config, 'logLevel'>): SiteLog {
  const destination = pino.destination({ dest: 1, sync: false });
  return {
    logger: createLogger(config, destination),
    drained() {
      // A synchronous flush here would overtake a write already handed to the thread pool, and that
      // write's older lines would land after the last one. The destination says 'drain' when its
      // writes are done and nothing is left; it stays open, so a late line cannot throw.
      return new Promise((resolve) => {
        const done = () => {
          clearTimeout(guard);
          resolve();
        };
        const guard = setTimeout(() => {
          try {
            destination.flushSync();
          } catch {
            // Standard output is gone (EPIPE): nothing more can be written.
          }
          done();
        }, DRAIN_GUARD_MS);
        destination.once('drain', done);
        destination.once('error', done);
        // Nothing under way (a quiet LOG_LEVEL): an empty write brings the 'drain' at once.
        destination.write('');
      });
    },
  };
}
