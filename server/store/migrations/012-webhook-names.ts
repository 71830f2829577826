// Version 12, one text for both engines: a webhook endpoint's name (decision 0028), which
// /privacy, the console, `webhooks list` and the audit log show instead of its URL, whose path,
// query and even host can be the receiver's credential. Endpoints stored before have none (NULL)
// until `webhooks rename` gives them one: a name made from the host would publish that host on
// /privacy.
export const sql = `
ALTER TABLE webhook_endpoints ADD COLUMN name TEXT;
`;
