// Version 2, one text for both engines: people in control of their address.
// - confirmed_at: when the address followed its confirmation link (double opt-in). Signups that
//   exist when this lands were taken without one and count as confirmed from the time they joined.
// - confirmation_due_at: a confirmation mail is due (CONFIRM_SIGNUPS=on): set by the signup's
//   own statement, cleared by the mail worker in the transaction that queues the mail, so no
//   crash between the two loses it (decision 0015).
// - undeliverable_at: when the mail server refused the address for good (a 5xx to RCPT TO).
// - address_tokens: the links mailed to an address (confirm, leave), kept only as SHA-256 hashes of
//   random tokens, so a copied database confirms or removes nobody. Erasure deletes them with the
//   signup.
// - Times are the ISO strings of toISOString() as everywhere (001-initial.ts). The new ones are
//   only ever compared whole, with strings of the same shape, so PostgreSQL's default collation
//   orders them as "C" would and one text serves both engines (SQLite knows no COLLATE "C").
// - The waiting index follows the one definition of "waiting" (store/signups.ts, WAITING).
export const sql = `
ALTER TABLE signups ADD COLUMN confirmed_at TEXT;
ALTER TABLE signups ADD COLUMN undeliverable_at TEXT;
ALTER TABLE signups ADD COLUMN confirmation_due_at TEXT;
UPDATE signups
SET confirmed_at = created_at;
DROP INDEX signups_waiting;
CREATE INDEX signups_waiting ON signups (created_at, id)
  WHERE invited_at IS NULL AND activated_at IS NULL AND confirmed_at IS NOT NULL
    AND undeliverable_at IS NULL;
-- The mail worker's claim of owed confirmations, oldest first.
CREATE INDEX signups_confirmation_due ON signups (confirmation_due_at)
  WHERE confirmation_due_at IS NOT NULL;
-- The expiry sweep reads the oldest unconfirmed signups.
CREATE INDEX signups_unconfirmed ON signups (created_at)
  WHERE confirmed_at IS NULL;

CREATE TABLE address_tokens (
  token_hash TEXT PRIMARY KEY,
  email_key TEXT NOT NULL REFERENCES signups (email_key),
  purpose TEXT NOT NULL CHECK (purpose IN ('confirm', 'leave')),
  created_at TEXT NOT NULL,
  expires_at TEXT,
  used_at TEXT
);
CREATE INDEX address_tokens_email_key ON address_tokens (email_key, purpose, created_at);
`;
