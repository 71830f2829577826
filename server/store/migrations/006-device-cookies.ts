// Version 6, one text for both engines: the console's device cookies (OWASP's "Slow Down
// Online Guessing Attacks with Device Cookies").
// - console_keys: the key that signs device cookies, made once by whichever replica needs it
//   first, so every replica checks every cookie and a restart keeps them valid.
// - admins.device_generation: random text inside every device cookie's signature; a new password,
//   a new second factor or removing the account changes it, and every cookie signed before is
//   worth nothing. NULL for accounts made before this version (their cookies sign '').
export const sql = `
CREATE TABLE console_keys (
  name TEXT PRIMARY KEY,
  secret TEXT NOT NULL,
  created_at TEXT NOT NULL
);
ALTER TABLE admins ADD COLUMN device_generation TEXT;
`;
