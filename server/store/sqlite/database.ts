// The site's own SQLite file (DATA_DIR/waitlist.db): signups, activation keys, the outbox of
// signups waiting for the backend, and the queue of invitation mail. WAL + synchronous=FULL: once a
// statement has returned, the row survives a crash or kill -9 (the 2xx is only sent after that).
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { sql as ADDRESSES_MIGRATION } from '../postgres/migrations/002-addresses';
import { sql as CONSOLE_MIGRATION } from '../postgres/migrations/003-console';
import { sql as CONSOLE_EVIDENCE_MIGRATION } from '../postgres/migrations/004-console-evidence';
import { sql as AUDIT_CHAIN_MIGRATION } from '../postgres/migrations/005-audit-chain';
import { sql as DEVICE_COOKIES_MIGRATION } from '../postgres/migrations/006-device-cookies';
import { sql as LEAVE_REQUESTS_MIGRATION } from '../postgres/migrations/007-leave-requests';
import { sql as WELCOME_MAIL_MIGRATION } from '../postgres/migrations/008-welcome-mail';
import { sql as WEBHOOKS_MIGRATION } from '../postgres/migrations/009-webhooks';
import { sql as SIGNUP_EVENTS_MIGRATION } from '../postgres/migrations/010-signup-events';
import { sql as BOT_GUARD_MIGRATION } from '../postgres/migrations/011-bot-guard';
import { sql as WEBHOOK_NAMES_MIGRATION } from '../postgres/migrations/012-webhook-names';

export type Db = Database.Database;

const DB_FILE_NAME = 'waitlist.db';

/** Schema versions, applied in order; PRAGMA user_version records how far a file has come. */
export const MIGRATIONS: string[] = [
  // 1: signups, activation keys, outbox
  `
  CREATE TABLE signups (
    id INTEGER PRIMARY KEY,
    email TEXT NOT NULL,
    email_key TEXT NOT NULL UNIQUE,
    description TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    activated_at TEXT
  );
  CREATE INDEX signups_created_at ON signups (created_at);
  CREATE TABLE activation_keys (
    key_hash TEXT PRIMARY KEY,
    email_key TEXT NOT NULL REFERENCES signups (email_key),
    created_at TEXT NOT NULL
  );
  CREATE TABLE outbox (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL,
    fields TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    last_error TEXT,
    created_at TEXT NOT NULL
  );
  CREATE INDEX outbox_next_attempt_at ON outbox (next_attempt_at);
  `,
  // 2: an outbox item is the whole signup request, so a retry sends exactly what the first attempt
  // sent: the visitor's X-Forwarded-* headers and one Idempotency-Key for every attempt.
  `
  ALTER TABLE outbox ADD COLUMN headers TEXT NOT NULL DEFAULT '{}';
  ALTER TABLE outbox ADD COLUMN idempotency_key TEXT;
  `,
  // 3: invitations. A signup records when it was invited and which OrgNote account its
  // subscription is bound to (one subscription per account); a key can be revoked (invite
  // --again); the mail queue holds each invitation until the mail server has taken it.
  `
  ALTER TABLE signups ADD COLUMN invited_at TEXT;
  ALTER TABLE signups ADD COLUMN external_provider TEXT;
  ALTER TABLE signups ADD COLUMN external_id TEXT;
  ALTER TABLE signups ADD COLUMN external_email TEXT;
  CREATE UNIQUE INDEX signups_account ON signups (external_provider, external_id) WHERE external_id IS NOT NULL;
  CREATE INDEX signups_waiting ON signups (created_at, id) WHERE invited_at IS NULL AND activated_at IS NULL;
  ALTER TABLE activation_keys ADD COLUMN revoked_at TEXT;
  CREATE INDEX activation_keys_email_key ON activation_keys (email_key);
  CREATE TABLE mail (
    id INTEGER PRIMARY KEY,
    email_key TEXT NOT NULL,
    message_id TEXT NOT NULL,
    message TEXT,
    state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'sent', 'failed')),
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    lease_until INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    created_at TEXT NOT NULL,
    done_at TEXT
  );
  CREATE INDEX mail_due ON mail (next_attempt_at) WHERE state = 'queued';
  CREATE INDEX mail_email_key ON mail (email_key);
  -- A key issued by hand (issue-key) before invitations existed was an invitation all the same.
  UPDATE signups SET invited_at = (SELECT MIN(created_at) FROM activation_keys WHERE activation_keys.email_key = signups.email_key)
  WHERE invited_at IS NULL;
  `,
  // 4: queues shared by workers. An outbox row is claimed with a lease like mail; a row of either
  // queue failing past the maximum age is set aside as dead until the operator sends it again.
  // SQLite cannot change a CHECK constraint in place, so the mail table is rebuilt.
  `
  ALTER TABLE outbox ADD COLUMN lease_until INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE outbox ADD COLUMN state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'dead'));
  CREATE TABLE mail_v4 (
    id INTEGER PRIMARY KEY,
    email_key TEXT NOT NULL,
    message_id TEXT NOT NULL,
    message TEXT,
    state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'sent', 'failed', 'dead')),
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    lease_until INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    created_at TEXT NOT NULL,
    done_at TEXT
  );
  INSERT INTO mail_v4 SELECT id, email_key, message_id, message, state, attempts, next_attempt_at, lease_until, last_error, created_at, done_at FROM mail;
  DROP TABLE mail;
  ALTER TABLE mail_v4 RENAME TO mail;
  CREATE INDEX mail_due ON mail (next_attempt_at) WHERE state = 'queued';
  CREATE INDEX mail_email_key ON mail (email_key);
  `,
  // 5: people in control of their address: the text is the PostgreSQL store's version 2
  // (postgres/migrations/002-addresses.ts), one statement list for both engines.
  ADDRESSES_MIGRATION,
  // 6: the operators' console: PostgreSQL's version 3 (postgres/migrations/003-console.ts).
  CONSOLE_MIGRATION,
  // 7: TOTP steps and audit addresses: PostgreSQL's version 4 (004-console-evidence.ts).
  CONSOLE_EVIDENCE_MIGRATION,
  // 8: the audit log's hash chain: PostgreSQL's version 5 (005-audit-chain.ts).
  AUDIT_CHAIN_MIGRATION,
  // 9: the console's device cookies: PostgreSQL's version 6 (006-device-cookies.ts).
  DEVICE_COOKIES_MIGRATION,
  // 10: /leave's requests for a link: PostgreSQL's version 7 (007-leave-requests.ts).
  LEAVE_REQUESTS_MIGRATION,
  // 11: the welcome mail: PostgreSQL's version 8 (008-welcome-mail.ts).
  WELCOME_MAIL_MIGRATION,
  // 12: webhooks: PostgreSQL's version 9 (009-webhooks.ts).
  WEBHOOKS_MIGRATION,
  // 13: the signup.created webhook event: PostgreSQL's version 10 (010-signup-events.ts).
  SIGNUP_EVENTS_MIGRATION,
  // 14: the bot guard's tokens: PostgreSQL's version 11 (011-bot-guard.ts).
  BOT_GUARD_MIGRATION,
  // 15: webhook endpoints' names: PostgreSQL's version 12 (012-webhook-names.ts).
  WEBHOOK_NAMES_MIGRATION,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** How far a file's schema has come (0: an empty file). */
export const schemaVersionOf = (db: Db) => db.pragma('user_version', { simple: true }) as number;

export const databaseFile = (dataDir: string) => path.join(dataDir, DB_FILE_NAME);

/**
 * Each step in an IMMEDIATE transaction that reads the version again inside it: the site and a CLI
 * opening an old file at the same moment then take turns, and the second finds nothing left to do.
 */
function migrate(db: Db): void {
  const current = schemaVersionOf(db);
  if (current > SCHEMA_VERSION) {
    throw new Error(
      `${db.name} has schema version ${current}, newer than this release knows (${SCHEMA_VERSION}).`,
    );
  }
  for (let version = current; version < SCHEMA_VERSION; version++) {
    db.transaction(() => {
      const now = schemaVersionOf(db);
      if (now > version) return;
      db.exec(MIGRATIONS[version]);
      db.pragma(`user_version = ${version + 1}`);
    }).immediate();
  }
}

/**
 * `migrate: false` opens the file as it is, for commands that only read or copy it: they never
 * change its schema, and never create a file that is not there.
 */
export function openDatabase(dataDir: string, { migrate: migrating = true } = {}): Db {
  if (migrating) createPrivately(dataDir);
  const db = new Database(databaseFile(dataDir), { fileMustExist: !migrating });
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  // Concurrent CLI commands wait for the server's write instead of failing at once.
  db.pragma('busy_timeout = 5000');
  if (migrating) migrate(db);
  return db;
}

/**
 * The folder (0700) and an empty file (0600) for SQLite to fill, whatever the umask: the file holds
 * keys not yet sent, and SQLite gives its -wal and -shm the file's own mode. What exists is kept.
 */
function createPrivately(dataDir: string): void {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  try {
    fs.closeSync(fs.openSync(databaseFile(dataDir), 'wx', 0o600));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}
