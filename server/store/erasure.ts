// A person's right to erasure: `waitlist remove <email>`, a leave link, the expiry of an
// unconfirmed address and a provider's spam complaint all delete everything the site keeps about
// it in one transaction: the signup, its activation keys and link tokens, its mail, its requests
// for a leave link, its webhook events not yet delivered or holding the address, the transient
// bounces counted against it, and any signup of it still waiting in the outbox for the backend;
// then it queues the signup's `signup.left` event, which carries only the signup's id and
// language, and suppresses the address (suppressions.ts: its keyed hash, never the address), so
// no import brings the person back. The transaction holds the signup's row lock, so an
// invitation racing it on another replica either finishes first (and its key, mail and events
// are erased too) or finds no signup.
import { emailKey, type FieldList } from '../../shared/form-checks';
import type { Language } from '../../shared/i18n/languages';
import { EXPIRED_UNCONFIRMED } from './signups';
import type { Queryable, Sql } from './sql';
import { suppressHashed, type AddressHash } from './suppressions';
import { emitWebhookEvent } from './webhooks/events';

export interface Erased {
  signup: boolean;
  keys: number;
  /** Ids of the removed mail, so the caller can delete their .eml copies too. */
  mailIds: number[];
  outbox: number;
}

/** Why an address is erased: its `signup.left` webhook event says it. */
export type ErasureReason = 'left' | 'removed' | 'expired' | 'complained';

export interface EraseOptions {
  /**
   * Only when it is still unconfirmed with every confirmation link expired, checked under the
   * row's lock (the sweep); the reason is then 'expired'.
   */
  onlyIfExpired?: boolean;
  /** 'removed' (an operator) unless given. */
  reason?: ErasureReason;
}

const NOTHING: Erased = { signup: false, keys: 0, mailIds: [], outbox: 0 };

/** The `signup.left` of an erased signup: no address, so no later erasure has anything to find. */
async function emitLeft(
  tx: Queryable,
  { id, language }: { id: number; language: Language },
  reason: ErasureReason,
  at: number,
): Promise<void> {
  const signup = { id: Number(id), state: 'left', language };
  await emitWebhookEvent(tx, { type: 'signup.left', signup, detail: { reason } }, at);
}

/**
 * Erases an address inside the caller's transaction (an erasure of its own, or a provider's
 * complaint applied with its notice): what createErasure's transaction does, at `at`, with the
 * address's keyed hash for its suppression.
 */
export async function eraseWithin(
  tx: Queryable,
  sql: Pick<Sql, 'lockRows' | 'skipLocked'>,
  email: string,
  { hash, at, options = {} }: { hash: string; at: number; options?: EraseOptions },
): Promise<Erased> {
  const key = emailKey(email);
  const locked = await tx.query<{ id: number; language: Language; expired: number }>(
    `SELECT id, language, CASE WHEN ${EXPIRED_UNCONFIRMED} THEN 1 ELSE 0 END AS expired
     FROM signups
     WHERE email_key = $2${sql.lockRows}`,
    [new Date(at).toISOString(), key],
  );
  // The sweep's check again under the lock: confirmed, or mailed a new link, since it looked.
  if (options.onlyIfExpired && Number(locked.rows[0]?.expired ?? 0) !== 1) return NOTHING;
  const mail = await tx.query<{ id: number }>(
    `DELETE FROM mail
     WHERE email_key = $1
     RETURNING id`,
    [key],
  );
  const mailIds = mail.rows.map((row) => Number(row.id)).sort((a, b) => a - b);
  const { rowCount: keys } = await tx.query(
    `DELETE FROM activation_keys
     WHERE email_key = $1`,
    [key],
  );
  await tx.query(
    `DELETE FROM address_tokens
     WHERE email_key = $1`,
    [key],
  );
  // Webhook events about the address: the undelivered ones, and any whose body holds it; the
  // rest of the delivery history keeps no trace of the address.
  await tx.query(
    `DELETE FROM webhook_deliveries
     WHERE email_key = $1 AND (state <> 'delivered' OR holds_address = 1)`,
    [key],
  );
  await tx.query(
    `UPDATE webhook_deliveries
     SET email_key = NULL
     WHERE email_key = $1`,
    [key],
  );
  // A request a mail worker holds right now is passed over, not waited for (that worker waits
  // for this signup's lock): its transaction deletes it, and finds no signup to mail.
  await tx.query(
    `DELETE FROM leave_requests
     WHERE id IN (
       SELECT id
       FROM leave_requests
       WHERE email_key = $1${sql.skipLocked}
     )`,
    [key],
  );
  // The address's data requests (passing over those a worker holds, as above) and data links.
  await tx.query(
    `DELETE FROM data_requests
     WHERE id IN (
       SELECT id
       FROM data_requests
       WHERE email_key = $1${sql.skipLocked}
     )`,
    [key],
  );
  await tx.query(
    `DELETE FROM data_tokens
     WHERE email_key = $1`,
    [key],
  );
  // The transient bounces counted against it (store/bounces.ts).
  await tx.query(
    `DELETE FROM transient_bounces
     WHERE email_key = $1`,
    [key],
  );
  const deleted = await tx.query(
    `DELETE FROM signups
     WHERE email_key = $1`,
    [key],
  );
  const signup = deleted.rowCount === 1;
  if (signup) {
    const reason = options.onlyIfExpired ? 'expired' : (options.reason ?? 'removed');
    await emitLeft(tx, locked.rows[0], reason, at);
    await suppressHashed(tx, hash, reason, at);
  }
  // Outbox rows hold the request's fields as JSON pairs; the address is compared in JS as the
  // store compares it (emailKey: JS trim and lower case, which SQL's lower() does not match
  // for every character).
  const { rows } = await tx.query<{ id: number; fields: string }>(
    `SELECT id, fields
     FROM outbox`,
  );
  const outbox = rows
    .filter((row) =>
      (JSON.parse(row.fields) as FieldList).some(
        ([name, value]) => name === 'email' && emailKey(value) === key,
      ),
    )
    .map((row) => Number(row.id));
  for (const id of outbox)
    await tx.query(
      `DELETE FROM outbox
       WHERE id = $1`,
      [id],
    );
  return { signup, keys, mailIds, outbox: outbox.length };
}

export function createErasure(
  sql: Sql,
  hashAddress: AddressHash,
  now: () => number,
): (email: string, options?: EraseOptions) => Promise<Erased> {
  return async (email, options = {}) => {
    const hash = await hashAddress(email);
    return sql.transaction((tx) => eraseWithin(tx, sql, email, { hash, at: now(), options }));
  };
}
