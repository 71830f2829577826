// resendConfirmations: `waitlist confirm --resend` and the console's button. Imported rows that
// came in unconfirmed wait, untouched by the expiry, until the operator asks for this: each is
// then due a confirmation mail, as a signup is, which the running site's mail worker writes and
// sends. Its link expires as any other, and the expiry erases whoever does not follow it. One
// address can be asked for too, imported or not, as long as it is unconfirmed.
import type { Config } from '../config';
import type { Store } from '../store';
import type { ResendOne } from '../store/imports';
import type { Actor } from './webhooks';

export interface ResendDeps {
  store: Pick<Store, 'imports' | 'audit'>;
  config: Pick<Config, 'backendUrl' | 'siteUrl'>;
  /** Told once mails are due, so the mail worker writes them now (the console). */
  wakeMail?: () => void;
}

export type ResendResult =
  /** With BACKEND_URL the backend keeps the signups; without SITE_URL a mail has no link. */
  | { kind: 'refused'; reason: 'backend-owns-signups' | 'no-site-url' }
  /** Every imported row waiting for its first confirmation mail is due one now. */
  | { kind: 'all'; due: number }
  | { kind: 'one'; email: string; outcome: ResendOne };

/** Rows made due in one statement: the SQLite write lock stays short however many wait. */
const RESEND_BATCH = 1_000;

export async function resendConfirmations(
  { store, config, wakeMail }: ResendDeps,
  input: { email?: string; actor: Actor },
): Promise<ResendResult> {
  if (config.backendUrl) return { kind: 'refused', reason: 'backend-owns-signups' };
  if (!config.siteUrl) return { kind: 'refused', reason: 'no-site-url' };
  const record = (addresses: number) =>
    store.audit.record({ ...input.actor, action: 'confirm --resend', addresses });
  if (input.email !== undefined) {
    const email = input.email.trim();
    const outcome = await store.imports.resendConfirmation(email);
    if (outcome === 'due') {
      await record(1);
      wakeMail?.();
    }
    return { kind: 'one', email, outcome };
  }
  let due = 0;
  for (;;) {
    const made = await store.imports.resendConfirmations(RESEND_BATCH);
    due += made;
    if (made < RESEND_BATCH) break;
  }
  await record(due);
  if (due > 0) wakeMail?.();
  return { kind: 'all', due };
}
