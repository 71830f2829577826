// Version 10, one text for both engines: the signup.created webhook event, and the pruning of
// old webhook deliveries (decision 0023).
// - signups.created_event_due_at: a new signup's `signup.created` is due, set in the signup's own
//   statement (new rows only) and cleared by the webhook worker in the transaction that writes the
//   event, as welcome_due_at is for the welcome mail: a signup costs the same whether its address
//   is new or known, and no crash between the two loses the event or writes it twice. Signups
//   stored before this version have none due.
// - webhook_deliveries_created: the sweep deletes deliveries past their 30 days by created_at.
export const sql = `
ALTER TABLE signups ADD COLUMN created_event_due_at TEXT;
-- The webhook worker's claim of owed events, oldest first.
CREATE INDEX signups_created_event_due ON signups (created_event_due_at)
  WHERE created_event_due_at IS NOT NULL;
CREATE INDEX webhook_deliveries_created ON webhook_deliveries (created_at);
`;
