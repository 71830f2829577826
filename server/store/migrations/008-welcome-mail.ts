// Version 8, one text for both engines: the welcome mail (WELCOME_MAIL=on).
// - signups.welcome_due_at: a welcome mail is due, set in the statement that makes the address
//   waitlisted (a new signup with confirmation off, or its confirmation) and cleared by the mail
//   worker in the transaction that queues the mail, as confirmation_due_at is: no crash between
//   the two loses it or sends it twice. Erasure deletes it with the row.
export const sql = `
ALTER TABLE signups ADD COLUMN welcome_due_at TEXT;
-- The mail worker's claim of owed welcomes, oldest first.
CREATE INDEX signups_welcome_due ON signups (welcome_due_at)
  WHERE welcome_due_at IS NOT NULL;
`;
