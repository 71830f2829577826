// Activation keys and the subscriptions they open, in SQLite. A key is stored only as a hash (a
// copied database file activates nobody) and shown once: on the CLI (issue-key) or in the
// invitation mail, which is queued in the same transaction as the key it carries. A subscription
// belongs to a waitlisted address; activating it may bind it to one OrgNote account, which the
// OrgNote backend later asks about (subscription-info).
import { createHash, randomBytes } from 'node:crypto';
import { emailKey } from '../../shared/signup';
import type { Db } from './db';
import type { SqliteMailQueue } from './mail-queue';
import { UnknownEmailError, type Account, type Activation, type Invitation, type OutgoingMail, type SignupState, type Subscriptions } from './types';

export { UnknownEmailError };

export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** 24 random bytes (192 bits) as URL-safe base64: 32 characters, no padding. */
export function newActivationKey(): string {
  return randomBytes(24).toString('base64url');
}

/** What both engines read of a signup to invite or activate it. */
export interface SubscriptionRow {
  email: string;
  email_key: string;
  invited_at: string | null;
  activated_at: string | null;
  external_provider: string | null;
  external_id: string | null;
}

export function createSubscriptions(db: Db, mailQueue: SqliteMailQueue, now: () => Date = () => new Date()): Subscriptions {
  const findSignup = db.prepare('SELECT email, email_key, invited_at, activated_at, external_provider, external_id FROM signups WHERE email_key = ?');
  const insertKey = db.prepare('INSERT INTO activation_keys (key_hash, email_key, created_at) VALUES (?, ?, ?)');
  const revokeKeys = db.prepare('UPDATE activation_keys SET revoked_at = ? WHERE email_key = ? AND revoked_at IS NULL');
  // An earlier invitation still waiting carries a key that is now revoked: it must not go out.
  // One a sender holds right now (its lease runs) is already on its way and cannot be recalled.
  const dropWaitingMail = db.prepare("DELETE FROM mail WHERE email_key = ? AND state = 'queued' AND lease_until <= ?");
  const markInvited = db.prepare('UPDATE signups SET invited_at = ? WHERE email_key = ?');
  const findKey = db.prepare('SELECT email_key FROM activation_keys WHERE key_hash = ? AND revoked_at IS NULL');
  const markActivated = db.prepare('UPDATE signups SET activated_at = ? WHERE email_key = ? AND activated_at IS NULL');
  const findAccount = db.prepare('SELECT email, email_key FROM signups WHERE external_provider = ? AND external_id = ?');
  const bindAccount = db.prepare('UPDATE signups SET external_provider = ?, external_id = ?, external_email = ? WHERE email_key = ?');

  const signupOf = (email: string) => findSignup.get(emailKey(email)) as SubscriptionRow | undefined;

  /** A fresh key for a signup, recorded as an invitation. */
  function newKey(signup: SubscriptionRow, at: string): string {
    const key = newActivationKey();
    insertKey.run(hashKey(key), signup.email_key, at);
    markInvited.run(at, signup.email_key);
    return key;
  }

  const invite = db.transaction((email: string, again: boolean, compose: (to: string, key: string) => OutgoingMail): Invitation => {
    const signup = signupOf(email);
    if (!signup) return { outcome: 'not-on-waitlist', email: email.trim() };
    // A key went out already (an invitation, or issue-key), or the subscription is active.
    if ((signup.invited_at || signup.activated_at) && !again) return { outcome: 'skipped', email: signup.email };
    const time = now();
    const at = time.toISOString();
    revokeKeys.run(at, signup.email_key);
    dropWaitingMail.run(signup.email_key, time.getTime());
    const key = newKey(signup, at);
    return { outcome: 'invited', email: signup.email, mail: mailQueue.enqueueNow(signup.email_key, compose(signup.email, key)) };
  });

  const activate = db.transaction((email: string, key: string, account: Account | undefined): Activation => {
    const row = findKey.get(hashKey(key)) as { email_key: string } | undefined;
    if (!row || row.email_key !== emailKey(email)) return { outcome: 'invalid' };
    const signup = findSignup.get(row.email_key) as SubscriptionRow;
    if (account) {
      const bound = signup.external_id !== null;
      if (bound && (signup.external_provider !== account.provider || signup.external_id !== account.id)) return { outcome: 'bound-elsewhere' };
      if (!bound) {
        // One subscription per account: an account that already holds another cannot take this one.
        if (findAccount.get(account.provider, account.id)) return { outcome: 'account-has-one' };
        bindAccount.run(account.provider, account.id, account.email ?? null, signup.email_key);
      }
    }
    markActivated.run(now().toISOString(), signup.email_key);
    return { outcome: 'active', email: signup.email };
  });

  return {
    async issueKey(email: string) {
      return db.transaction(() => {
        const signup = signupOf(email);
        if (!signup) throw new UnknownEmailError(`${email.trim()} is not on the waitlist`);
        return newKey(signup, now().toISOString());
      })();
    },

    async invite(email: string, options: { again: boolean; compose: (to: string, key: string) => OutgoingMail }) {
      return invite(email, options.again, options.compose);
    },

    async activate(email: string, key: string, account?: Account) {
      return activate(email, key, account);
    },

    async stateOf(email: string): Promise<SignupState | undefined> {
      const signup = signupOf(email);
      if (!signup) return undefined;
      return signup.activated_at ? 'activated' : signup.invited_at ? 'invited' : 'waitlisted';
    },

    async ofAccount(provider: string, id: string) {
      const row = findAccount.get(provider, id) as { email: string } | undefined;
      return row && { email: row.email };
    },
  };
}
