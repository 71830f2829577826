// A person's right to erasure in PostgreSQL, as in SQLite (server/store/erasure.ts): the signup,
// its keys, its invitation mail and any signup of it still waiting in the outbox, in one
// transaction that holds the signup's row lock, so an invitation racing it on another replica
// either finishes first (and its key and mail are erased too) or finds no signup.
import { emailKey } from '../../../shared/signup';
import type { Erased } from '../types';
import type { Connection } from './connection';

export function createErasure(db: Connection): (email: string) => Promise<Erased> {
  return (email) =>
    db.transaction(async (query): Promise<Erased> => {
      const key = emailKey(email);
      await query('SELECT 1 FROM signups WHERE email_key = $1 FOR UPDATE', [key]);
      const mailIds = (await query<{ id: number }>('DELETE FROM mail WHERE email_key = $1 RETURNING id', [key])).rows.map((row) => row.id).sort((a, b) => a - b);
      const keys = (await query('DELETE FROM activation_keys WHERE email_key = $1', [key])).rowCount ?? 0;
      const signup = (await query('DELETE FROM signups WHERE email_key = $1', [key])).rowCount === 1;
      // The outbox holds request fields as JSON pairs; SQL picks out the email values, and the
      // address is compared in JS as the store compares it (emailKey: JS trim and lower case,
      // which PostgreSQL's btrim and lower do not match for every character).
      const candidates = await query<{ id: number; value: string | null }>(
        "SELECT outbox.id, field->>1 AS value FROM outbox, json_array_elements(outbox.fields) AS field WHERE field->>0 = 'email'",
      );
      const outbox = [...new Set(candidates.rows.filter((row) => row.value !== null && emailKey(row.value) === key).map((row) => row.id))];
      if (outbox.length > 0) await query('DELETE FROM outbox WHERE id = ANY($1::bigint[])', [outbox]);
      return { signup, keys, mailIds, outbox: outbox.length };
    });
}
