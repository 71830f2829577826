// Version 5, one text for both engines: a tamper-evident audit log (decision 0017).
// - audit_log.seq: the entry's place in the chain, 1, 2, 3…; unique, so two appends that were not
//   serialised cannot both take a place.
// - audit_log.prev_hash, audit_log.hash: the hash of the entry before, and SHA-256 over it and
//   this entry's id, time, account, action and addresses. Entries written before this version keep
//   all three NULL: the chain starts at the first entry after it.
// - audit_log_once: finds a window's "login throttled" entry without reading the whole log.
export const sql = `
ALTER TABLE audit_log ADD COLUMN seq BIGINT;
ALTER TABLE audit_log ADD COLUMN prev_hash TEXT;
ALTER TABLE audit_log ADD COLUMN hash TEXT;
CREATE UNIQUE INDEX audit_log_seq ON audit_log (seq);
CREATE INDEX audit_log_once ON audit_log (account, action, at);
`;
