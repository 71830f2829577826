// Version 17, one text for both engines: an unconfirmed signup brought in by `waitlist import`
// (or the console's import) waits for its confirmation mail before the expiry may erase it.
// - signups.imported_unconfirmed_at: when an import added the row unconfirmed. While it is set,
//   the expiry sweep passes the row over (store/signups.ts, EXPIRED_UNCONFIRMED): nobody mailed
//   the person a link yet, so nobody failed to follow one. `waitlist confirm --resend` (or the
//   person signing up again) clears it in the statement that makes the confirmation mail due; the
//   link that mail carries then expires as any other, and the expiry counts from it.
// - signups_unconfirmed, the sweep's index, leaves those rows out, so a hundred thousand imported
//   rows waiting cost the sweep nothing; signups_imported_unconfirmed is what --resend reads.
export const sql = `
ALTER TABLE signups ADD COLUMN imported_unconfirmed_at TEXT;
DROP INDEX signups_unconfirmed;
CREATE INDEX signups_unconfirmed ON signups (created_at)
  WHERE confirmed_at IS NULL AND imported_unconfirmed_at IS NULL;
CREATE INDEX signups_imported_unconfirmed ON signups (imported_unconfirmed_at)
  WHERE imported_unconfirmed_at IS NOT NULL;
`;
