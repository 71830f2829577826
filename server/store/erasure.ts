// A person's right to erasure: `waitlist remove <email>` deletes everything the site keeps about
// an address in one transaction: the signup, its activation keys, its invitation mail, and any
// signup of it still waiting in the outbox for the backend.
import { emailKey } from '../../shared/signup';
import type { FieldList } from '../http/body';
import type { Db } from './db';
import type { Erased } from './types';

export function createErasure(db: Db): (email: string) => Promise<Erased> {
  const mailIds = db.prepare('SELECT id FROM mail WHERE email_key = ?').pluck();
  const deleteMail = db.prepare('DELETE FROM mail WHERE email_key = ?');
  const deleteKeys = db.prepare('DELETE FROM activation_keys WHERE email_key = ?');
  const deleteSignup = db.prepare('DELETE FROM signups WHERE email_key = ?');
  const outboxFields = db.prepare('SELECT id, fields FROM outbox');
  const deleteOutboxItem = db.prepare('DELETE FROM outbox WHERE id = ?');

  /** Outbox rows hold the request's fields as JSON; the address is compared as the store compares it. */
  function outboxItemsOf(key: string): number[] {
    return (outboxFields.all() as { id: number; fields: string }[])
      .filter((row) => (JSON.parse(row.fields) as FieldList).some(([name, value]) => name === 'email' && emailKey(value) === key))
      .map((row) => row.id);
  }

  const erase = db.transaction((email: string): Erased => {
    const key = emailKey(email);
    const ids = mailIds.all(key) as number[];
    deleteMail.run(key);
    const keys = deleteKeys.run(key).changes;
    const signup = deleteSignup.run(key).changes === 1;
    const outbox = outboxItemsOf(key);
    for (const id of outbox) deleteOutboxItem.run(id);
    return { signup, keys, mailIds: ids, outbox: outbox.length };
  });
  return async (email) => erase(email);
}
