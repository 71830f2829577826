// Version 3, one text for both engines: the operators' console. Accounts, their sessions and the
// audit log live in the store, so every replica honours every session and the log is one.
// - admins: a password hash (argon2id, server/console/password.ts) and, once enrolled, the TOTP
//   secret (a verifier needs the secret itself; whoever reads the database reads it too).
// - admin_sessions: only the SHA-256 of the session id (a copied database opens no session),
//   deleted with the account.
// - login_failures: failed logins per account and per client IP in fixed windows, so the throttle
//   holds for every replica (keys are hashes: no address or IP is kept).
// - audit_log: who did what and how many addresses it touched; never an address (an erasure then
//   leaves none behind). Keys are random text, not serials, so one text serves both engines.
// - Two indexes for the console's table of a million signups: signups_created_at gains the address,
//   so a search reads it from the index in the list's order and fetches only the rows that match
//   (SQLite's deferred seek: about 100 ms instead of 270 for a million); signups_state is STATE
//   itself (signups.ts), so counting by state and a state filter read an index, not every row.
//   STATE is interpolated here, so a change to it needs a migration that rebuilds the index; the
//   contract test that the stats read signups_state fails until then.
import { STATE } from '../signups';

export const sql = `
CREATE TABLE admins (
  email_key TEXT PRIMARY KEY,
  email TEXT NOT NULL,
  password_hash TEXT NOT NULL,
  totp_secret TEXT,
  created_at TEXT NOT NULL,
  password_changed_at TEXT NOT NULL
);

CREATE TABLE admin_sessions (
  id_hash TEXT PRIMARY KEY,
  admin_key TEXT NOT NULL REFERENCES admins (email_key) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  last_seen_at TEXT NOT NULL
);
CREATE INDEX admin_sessions_admin ON admin_sessions (admin_key);

CREATE TABLE login_failures (
  key TEXT NOT NULL,
  window_start BIGINT NOT NULL,
  count INTEGER NOT NULL,
  PRIMARY KEY (key, window_start)
);

-- The dashboard's chart counts invitations and activations per day over 90 days: index ranges,
-- not a scan of every signup.
CREATE INDEX signups_invited_at ON signups (invited_at)
  WHERE invited_at IS NOT NULL;
CREATE INDEX signups_activated_at ON signups (activated_at)
  WHERE activated_at IS NOT NULL;

DROP INDEX signups_created_at;
CREATE INDEX signups_created_at ON signups (created_at, id, email_key);
CREATE INDEX signups_state ON signups ((${STATE}), created_at, id);

CREATE TABLE audit_log (
  id TEXT PRIMARY KEY,
  at TEXT NOT NULL,
  account TEXT NOT NULL,
  action TEXT NOT NULL,
  addresses INTEGER NOT NULL
);
CREATE INDEX audit_log_at ON audit_log (at, id);
`;
