// Version 15, one text for both engines: where a signup came from (shared/sources.ts), a link's
// utm_source, utm_medium and utm_campaign and the referring site's host, each at most 64
// characters, as the signup operation bounds them. Kept from the first signup of the address: a
// repeat changes none of them (docs/decisions/0035-where-signups-come-from.md). Null where not
// known, as for every signup stored before. No index: the dashboard counts one period's signups
// by source through signups_created_at's range.
export const sql = `
ALTER TABLE signups ADD COLUMN utm_source TEXT;
ALTER TABLE signups ADD COLUMN utm_medium TEXT;
ALTER TABLE signups ADD COLUMN utm_campaign TEXT;
ALTER TABLE signups ADD COLUMN referrer TEXT;
`;
