// Version 4, one text for both engines: what the console must remember to refuse a replayed
// code and to say who acted from where.
// - admins.totp_step: the last TOTP time step (30 s periods since 1970) a login accepted. A code
//   of that step or an older one is refused (RFC 6238 §5.2); the login claims the step with one
//   conditional UPDATE, so of two replicas checking the same code at once only one wins.
// - audit_log.client: the client address of the request that acted (the request pipeline's,
//   under TRUST_PROXY), NULL for the CLI. Cleared after 90 days (decision 0017); the partial index
//   holds only the entries that still have one, so clearing reads no more than it clears.
export const sql = `
ALTER TABLE admins ADD COLUMN totp_step BIGINT;
ALTER TABLE audit_log ADD COLUMN client TEXT;
CREATE INDEX audit_log_client_at ON audit_log (at)
  WHERE client IS NOT NULL;
`;
