// The stateful parts behind the app, opened once per process and closed on shutdown.
import type { Config } from './config';
import { openDatabase, type Db } from './store/db';
import { createOutbox, type Outbox } from './store/outbox';
import { createWaitlist, type Waitlist } from './store/waitlist';

export interface Services {
  db: Db;
  waitlist: Waitlist;
  outbox: Outbox;
  close(): void;
}

/** `now` is injectable so tests can move time forward past the outbox backoff. */
export function openServices(config: Pick<Config, 'dataDir'>, now: () => number = Date.now): Services {
  const db = openDatabase(config.dataDir);
  return {
    db,
    waitlist: createWaitlist(db, () => new Date(now())),
    outbox: createOutbox(db, now),
    close: () => db.close(),
  };
}
