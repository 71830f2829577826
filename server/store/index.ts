// The store: everything the site keeps (signups, activation keys and subscriptions, the outbox,
// the mail queue), opened once per process from DATA_DIR and closed on shutdown.
import type { Config } from '../config';
import { openDatabase, type Db } from './db';
import { createErasure, type Erase } from './erasure';
import { createMailQueue, type MailQueue } from './mail-queue';
import { createOutbox, type Outbox } from './outbox';
import { createSignups, type Signups } from './signups';
import { createSubscriptions, type Subscriptions } from './subscriptions';

export interface Store {
  db: Db;
  signups: Signups;
  subscriptions: Subscriptions;
  outbox: Outbox;
  mail: MailQueue;
  /** Deletes everything kept about an address (waitlist remove). */
  erase: Erase;
  close(): void;
}

/** `now` is injectable so tests can move time forward past the outbox and mail backoff. */
export function openStore(config: Pick<Config, 'dataDir'>, now: () => number = Date.now): Store {
  const db = openDatabase(config.dataDir);
  const date = () => new Date(now());
  const mail = createMailQueue(db, now);
  return {
    db,
    signups: createSignups(db, date),
    subscriptions: createSubscriptions(db, mail, date),
    outbox: createOutbox(db, now),
    mail,
    erase: createErasure(db),
    close: () => db.close(),
  };
}
