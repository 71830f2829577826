// issue-key: an activation key for a waitlisted address, to send by hand. It counts as an
// invitation; the key is shown once and stored only as a hash.
import type { Store } from '../store';
import { UnknownEmailError } from '../store/subscriptions';

export type IssueKeyResult =
  { kind: 'issued'; email: string; key: string } | { kind: 'not-on-waitlist'; email: string };

export async function issueKey(
  { store }: { store: Pick<Store, 'subscriptions'> },
  email: string,
): Promise<IssueKeyResult> {
  try {
    return { kind: 'issued', email: email.trim(), key: await store.subscriptions.issueKey(email) };
  } catch (err) {
    if (err instanceof UnknownEmailError) return { kind: 'not-on-waitlist', email: email.trim() };
    throw err;
  }
}
