// Version 18, one text for both engines: what mail providers report after they accepted our mail
// (decision 0038).
// - signups.undeliverable_by / undeliverable_detail: who found the address undeliverable (`smtp`:
//   our mail server refused it while sending; or the provider whose bounce did) and the provider's
//   own words for it ("Permanent/General"), which the console shows beside the mark. Rows marked
//   before this version have neither: their mark came from the mail server.
// - bounce_notices: the notices applied, by the provider's id, so one delivered again (a retry,
//   another replica) is applied once; with the kind, so the dashboard can tell the rates. Never
//   the address. Kept 30 days (the maintenance sweep).
// - bounce_tokens: Mailgun's signature tokens and the event each signed, so a token is good for
//   that one event. Kept 30 days.
// - transient_bounces: one row a transient bounce of an address still on the list; three within 7
//   days make it undeliverable. Erased with the address, and swept after 7 days.
export const sql = `
ALTER TABLE signups ADD COLUMN undeliverable_by TEXT;
ALTER TABLE signups ADD COLUMN undeliverable_detail TEXT;
CREATE TABLE bounce_notices (
  provider TEXT NOT NULL,
  notice_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  received_at TEXT NOT NULL,
  PRIMARY KEY (provider, notice_id)
);
CREATE INDEX bounce_notices_received ON bounce_notices (received_at);
CREATE TABLE bounce_tokens (
  provider TEXT NOT NULL,
  token TEXT NOT NULL,
  notice_id TEXT NOT NULL,
  received_at TEXT NOT NULL,
  PRIMARY KEY (provider, token)
);
CREATE INDEX bounce_tokens_received ON bounce_tokens (received_at);
CREATE TABLE transient_bounces (
  email_key TEXT NOT NULL,
  received_at TEXT NOT NULL
);
CREATE INDEX transient_bounces_address ON transient_bounces (email_key, received_at);
`;
