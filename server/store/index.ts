// The store: everything the site keeps (signups, activation keys, the outbox), opened once per
// process from DATA_DIR and closed on shutdown.
import type { Config } from '../config';
import { openDatabase, type Db } from './db';
import { createOutbox, type Outbox } from './outbox';
import { createSignups, type Signups } from './signups';

export interface Store {
  db: Db;
  signups: Signups;
  outbox: Outbox;
  close(): void;
}

/** `now` is injectable so tests can move time forward past the outbox backoff. */
export function openStore(config: Pick<Config, 'dataDir'>, now: () => number = Date.now): Store {
  const db = openDatabase(config.dataDir);
  return {
    db,
    signups: createSignups(db, () => new Date(now())),
    outbox: createOutbox(db, now),
    close: () => db.close(),
  };
}
