// Version 7, one text for both engines: the same work before an answer, whatever the address
// (decision 0021).
// - leave_requests: /leave's requests for a link, recorded whether or not the address is on the
//   list: the address as the store compares it (email_key), nothing else about it. The mail
//   worker takes each in the transaction that writes its link and mail (or finds no signup) and
//   deletes it there. An erasure deletes the address's rows too. Keys are random text, as the
//   audit log's, so one text serves both engines.
// - signups.repeated_at: when the address last signed up again. A repeat writes it, so its row is
//   written as a new signup's is: SQLite skips a write that changes no byte (and its sync).
export const sql = `
ALTER TABLE signups ADD COLUMN repeated_at TEXT;
CREATE TABLE leave_requests (
  id TEXT PRIMARY KEY,
  email_key TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX leave_requests_created_at ON leave_requests (created_at, id);
CREATE INDEX leave_requests_email_key ON leave_requests (email_key);
`;
