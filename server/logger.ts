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
