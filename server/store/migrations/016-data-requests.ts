// Version 16: a person's own data (decision 0036). The engines differ only in how the subject of
// a mail still queued is read out of its stored message, hence a text for each.
// - data_requests: /privacy's requests for a data link, recorded whether or not the address is on
//   the list, as leave_requests are (decision 0021): the address as the store compares it, and
//   nothing else. The mail worker deletes each in the transaction that answers it; an erasure
//   deletes the address's; one nobody answered within a day is pruned.
// - data_tokens: the links that download what the site holds about an address, 192 random bits
//   kept only as their SHA-256, as address_tokens are, in a table of their own: address_tokens'
//   CHECK on purpose cannot change in place on SQLite. A link works once, until expires_at; an
//   erasure deletes the address's, and the expiry sweep those past their time.
// - mail.kind and mail.subject: what a message was, kept once it is sent and its body cleared, so
//   a person's data can name the mail they were sent. Messages sent before have neither; those
//   still waiting take their subject from the message they hold.
const common = `
CREATE TABLE data_requests (
  id TEXT PRIMARY KEY,
  email_key TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX data_requests_created_at ON data_requests (created_at, id);
CREATE INDEX data_requests_email_key ON data_requests (email_key);
CREATE TABLE data_tokens (
  token_hash TEXT PRIMARY KEY,
  email_key TEXT NOT NULL REFERENCES signups (email_key),
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  used_at TEXT
);
CREATE INDEX data_tokens_email_key ON data_tokens (email_key, created_at);
CREATE INDEX data_tokens_expires_at ON data_tokens (expires_at);
ALTER TABLE mail ADD COLUMN kind TEXT;
ALTER TABLE mail ADD COLUMN subject TEXT;
`;

export const sql = {
  sqlite: `${common}
UPDATE mail
SET subject = json_extract(message, '$.subject')
WHERE message IS NOT NULL AND json_valid(message);
`,
  postgres: `${common}
UPDATE mail
SET subject = message::json ->> 'subject'
WHERE message IS NOT NULL;
`,
};
