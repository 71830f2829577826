// Version 11, one text for both engines: the bot guard's tokens (decision 0024).
// - guard_tokens: one row per token a signup spent, kept as its SHA-256: a proof-of-work
//   challenge (used once) or the signed issue time of a no-JavaScript form (used a bounded number
//   of times). Every replica counts in the same row, so a token replayed to another replica is
//   refused too. Rows past `expires_at` (ms since the epoch) are worth nothing and are pruned.
export const sql = `
CREATE TABLE guard_tokens (
  token_hash TEXT PRIMARY KEY,
  uses INTEGER NOT NULL,
  expires_at BIGINT NOT NULL
);
CREATE INDEX guard_tokens_expires ON guard_tokens (expires_at);
`;
