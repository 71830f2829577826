// A person's right to erasure: `waitlist remove <email>` deletes everything the site keeps about
// an address in one transaction: the signup, its activation keys, its invitation mail, and any
// signup of it still waiting in the outbox for the backend. The transaction holds the signup's
// row lock, so an invitation racing it on another replica either finishes first (and its key and
// mail are erased too) or finds no signup.
import { emailKey, type FieldList } from '../../shared/signup';
import type { Sql } from './sql';
import type { Erased } from './types';

export function createErasure(sql: Sql): (email: string) => Promise<Erased> {
  return (email) =>
    sql.transaction(async (tx): Promise<Erased> => {
      const key = emailKey(email);
      await tx.query(`SELECT 1 AS locked FROM signups WHERE email_key = $1${sql.lockRows}`, [key]);
      const mailIds = (await tx.query<{ id: number }>('DELETE FROM mail WHERE email_key = $1 RETURNING id', [key])).rows
        .map((row) => Number(row.id))
        .sort((a, b) => a - b);
      const keys = (await tx.query('DELETE FROM activation_keys WHERE email_key = $1', [key])).rowCount;
      const signup = (await tx.query('DELETE FROM signups WHERE email_key = $1', [key])).rowCount === 1;
      // Outbox rows hold the request's fields as JSON pairs; the address is compared in JS as the
      // store compares it (emailKey: JS trim and lower case, which SQL's lower() does not match
      // for every character).
      const { rows } = await tx.query<{ id: number; fields: string }>('SELECT id, fields FROM outbox');
      const outbox = rows
        .filter((row) => (JSON.parse(row.fields) as FieldList).some(([name, value]) => name === 'email' && emailKey(value) === key))
        .map((row) => Number(row.id));
      for (const id of outbox) await tx.query('DELETE FROM outbox WHERE id = $1', [id]);
      return { signup, keys, mailIds, outbox: outbox.length };
    });
}
