// Version 13, one text for both engines: the language of the page a signup came from
// (shared/i18n/languages.ts), which its mail is written in and the console, the export and the
// webhook events show. A repeat from the other language's page sets it anew. Signups stored
// before were all made on the English pages. No CHECK: the signup operation refuses an unknown
// language, and a language added later then needs no rebuild of the table (SQLite cannot change a
// CHECK in place). A constant default: neither engine rewrites the table to add the column.
export const sql = `
ALTER TABLE signups ADD COLUMN language TEXT NOT NULL DEFAULT 'en';
`;
