// Version 9, one text for both engines: outgoing webhooks (Standard Webhooks 1.0; decision 0023).
// - webhook_endpoints: where events go. `events`: a JSON array of event types, empty for all.
//   `secrets`: a JSON array of the endpoint's signing secrets, newest first, each with the time it
//   stops signing (null: the current one); kept as they are, since a hash cannot sign.
//   `failing_since`: when its deliveries began failing without a success since (5 days of it
//   disable the endpoint). Ids are random text, as the audit log's.
// - webhook_deliveries: one event for one endpoint, its id the webhook-id every attempt sends, its
//   payload the exact body. Claimed like the outbox (leases.ts). `email_key`: the address the
//   event is about, so an erasure finds it; `holds_address`: the body carries the address.
export const sql = `
CREATE TABLE webhook_endpoints (
  id TEXT PRIMARY KEY,
  url TEXT NOT NULL,
  events TEXT NOT NULL,
  with_address INTEGER NOT NULL DEFAULT 0,
  secrets TEXT NOT NULL,
  created_at TEXT NOT NULL,
  failing_since TEXT,
  disabled_at TEXT,
  disabled_reason TEXT
);
CREATE TABLE webhook_deliveries (
  id TEXT PRIMARY KEY,
  endpoint_id TEXT NOT NULL,
  type TEXT NOT NULL,
  payload TEXT NOT NULL,
  email_key TEXT,
  holds_address INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT 'pending',
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at BIGINT NOT NULL,
  lease_until BIGINT NOT NULL DEFAULT 0,
  last_status INTEGER,
  last_duration_ms INTEGER,
  last_error TEXT,
  delivered_at TEXT
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at, id)
  WHERE state = 'pending';
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, created_at);
CREATE INDEX webhook_deliveries_email_key ON webhook_deliveries (email_key);
`;
