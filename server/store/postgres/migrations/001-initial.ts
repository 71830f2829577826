// Schema 1 of the PostgreSQL store: what SQLite's schema 4 (server/store/sqlite/database.ts) holds,
// plus the rate counters every replica shares. SQL kept in a .ts module so it ships inside the
// esbuild bundle (dist/server/*.js) with no file to find at run time; one module per version.
//
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
export const sql = `
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
CREATE UNIQUE INDEX signups_account ON signups (external_provider, external_id) WHERE external_id IS NOT NULL;
CREATE INDEX signups_waiting ON signups (created_at, id) WHERE invited_at IS NULL AND activated_at IS NULL;

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
CREATE INDEX outbox_due ON outbox (next_attempt_at, id) WHERE state = 'pending';

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
CREATE INDEX mail_due ON mail (next_attempt_at, id) WHERE state = 'queued';
CREATE INDEX mail_email_key ON mail (email_key);

-- Fixed windows: one row per key and window, counted up by an upsert; ended windows are swept.
CREATE TABLE rate_counters (
  key TEXT NOT NULL,
  window_start BIGINT NOT NULL,
  count INTEGER NOT NULL,
  PRIMARY KEY (key, window_start)
);
CREATE INDEX rate_counters_window_start ON rate_counters (window_start);
`;
