// Version 1: signups, activation keys, the outbox of signups waiting for the backend, and the
// queue of invitation mail. The engines differ here, so the version has a text for each.
//
// SQLite's is the four steps it took before there was one list (user_version 1-4 of the files
// written then): a file from then takes the steps it lacks (sqlite/database.ts), and a new file
// takes all four, so that both end with the same schema. SQLite cannot change a CHECK constraint
// in place, hence the rebuild of the mail table in the fourth.
//
// PostgreSQL's holds what SQLite's four steps hold, plus the rate counters every replica shares.
// Times the contract exposes as text (signups, keys, *_at of outbox and mail) are stored as the
// ISO strings the SQLite store returns (toISOString(), always UTC 'Z' with milliseconds), in the
// "C" collation: compared byte by byte, they sort and compare (list's `since`, the dead-letter
// cut-off) exactly as SQLite compares them, whatever the database's locale, and `since` may be
// any prefix ('2026-10' or '') as it may with SQLite. timestamptz would need a parse and a format
// on every read and would refuse such prefixes. Due times and leases are epoch milliseconds
// (BIGINT, read back as JS numbers) as in SQLite.
//
// Outbox fields and headers are `json`, not `jsonb`: json keeps the text as written (key order,
// and a \u0000 escape jsonb refuses), so an item reads back exactly as it was queued, and
// erasure can still look into the fields in SQL.

/** SQLite's four steps, in order; `sql.sqlite` is all of them. */
export const sqliteSteps: readonly string[] = [
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
  // 2: an outbox item is the whole signup request, so a retry sends exactly what the first
  // attempt sent: the visitor's X-Forwarded-* headers and one Idempotency-Key for every attempt.
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
CREATE UNIQUE INDEX signups_account ON signups (external_provider, external_id)
  WHERE external_id IS NOT NULL;
CREATE INDEX signups_waiting ON signups (created_at, id)
  WHERE invited_at IS NULL AND activated_at IS NULL;
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
CREATE INDEX mail_due ON mail (next_attempt_at)
  WHERE state = 'queued';
CREATE INDEX mail_email_key ON mail (email_key);
-- A key issued by hand (issue-key) before invitations existed was an invitation all the same.
UPDATE signups
SET invited_at = (
  SELECT MIN(created_at)
  FROM activation_keys
  WHERE activation_keys.email_key = signups.email_key
)
WHERE invited_at IS NULL;
`,
  // 4: queues shared by workers. An outbox row is claimed with a lease like mail; a row of either
  // queue failing past the maximum age is set aside as dead until the operator sends it again.
  `
ALTER TABLE outbox ADD COLUMN lease_until INTEGER NOT NULL DEFAULT 0;
ALTER TABLE outbox ADD COLUMN state TEXT NOT NULL DEFAULT 'pending'
  CHECK (state IN ('pending', 'dead'));
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
INSERT INTO mail_v4
SELECT id, email_key, message_id, message, state, attempts, next_attempt_at, lease_until,
  last_error, created_at, done_at
FROM mail;
DROP TABLE mail;
ALTER TABLE mail_v4 RENAME TO mail;
CREATE INDEX mail_due ON mail (next_attempt_at)
  WHERE state = 'queued';
CREATE INDEX mail_email_key ON mail (email_key);
`,
];

export const sql = {
  sqlite: sqliteSteps.join(''),
  postgres: `
CREATE TABLE signups (
  id BIGSERIAL PRIMARY KEY,
  email TEXT NOT NULL,
  email_key TEXT NOT NULL UNIQUE,
  description TEXT NOT NULL DEFAULT '',
  created_at TEXT COLLATE "C" NOT NULL,
  invited_at TEXT COLLATE "C",
  activated_at TEXT COLLATE "C",
  external_provider TEXT,
  external_id TEXT,
  external_email TEXT
);
-- list/stream read newest first: a backward scan of this index, no sort of a million rows.
CREATE INDEX signups_created_at ON signups (created_at, id);
-- One subscription per OrgNote account.
CREATE UNIQUE INDEX signups_account ON signups (external_provider, external_id)
  WHERE external_id IS NOT NULL;
CREATE INDEX signups_waiting ON signups (created_at, id)
  WHERE invited_at IS NULL AND activated_at IS NULL;

CREATE TABLE activation_keys (
  key_hash TEXT PRIMARY KEY,
  email_key TEXT NOT NULL REFERENCES signups (email_key),
  created_at TEXT COLLATE "C" NOT NULL,
  revoked_at TEXT COLLATE "C"
);
CREATE INDEX activation_keys_email_key ON activation_keys (email_key);

CREATE TABLE outbox (
  id BIGSERIAL PRIMARY KEY,
  path TEXT NOT NULL,
  fields JSON NOT NULL,
  headers JSON NOT NULL DEFAULT '{}',
  idempotency_key TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at BIGINT NOT NULL,
  lease_until BIGINT NOT NULL DEFAULT 0,
  last_error TEXT,
  created_at TEXT COLLATE "C" NOT NULL,
  state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'dead'))
);
-- The claim's scan: due pending rows in order (and depth's count of pending rows).
CREATE INDEX outbox_due ON outbox (next_attempt_at, id)
  WHERE state = 'pending';

CREATE TABLE mail (
  id BIGSERIAL PRIMARY KEY,
  email_key TEXT NOT NULL,
  message_id TEXT NOT NULL,
  message TEXT,
  state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'sent', 'failed', 'dead')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at BIGINT NOT NULL,
  lease_until BIGINT NOT NULL DEFAULT 0,
  last_error TEXT,
  created_at TEXT COLLATE "C" NOT NULL,
  done_at TEXT COLLATE "C"
);
CREATE INDEX mail_due ON mail (next_attempt_at, id)
  WHERE state = 'queued';
CREATE INDEX mail_email_key ON mail (email_key);

-- Fixed windows: one row per key and window, counted up by an upsert; ended windows are swept.
CREATE TABLE rate_counters (
  key TEXT NOT NULL,
  window_start BIGINT NOT NULL,
  count INTEGER NOT NULL,
  PRIMARY KEY (key, window_start)
);
CREATE INDEX rate_counters_window_start ON rate_counters (window_start);
`,
};
