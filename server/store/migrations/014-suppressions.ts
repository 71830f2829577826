// Version 14, one text for both engines: who left is never brought back (decision 0034).
// - suppressions: one row per address that left, was removed or expired unconfirmed (an erasure),
//   or that an imported list says must not be mailed (blocklisted, unsubscribed, cleaned), kept
//   as an HMAC of its normalised address, never the address: an import can tell it is there,
//   the file tells nobody who it was. A person who signs up again lifts it.
// - store_keys: the keys the store makes for itself, one row a name; the suppression list's HMAC
//   key is written by the first replica that needs it (server/store/suppressions.ts).
export const sql = `
CREATE TABLE suppressions (
  address_hash TEXT PRIMARY KEY,
  reason TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE TABLE store_keys (
  name TEXT PRIMARY KEY,
  key TEXT NOT NULL
);
`;
