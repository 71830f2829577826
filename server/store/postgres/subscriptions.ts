// Activation keys and subscriptions in PostgreSQL, with the SQLite store's rules
// (server/store/subscriptions.ts): keys stored only as hashes, an invitation's key and mail in one
// transaction, one subscription per account. Every transaction first locks the signup's row, so
// an invitation, an activation and an erasure of one address on different replicas take turns.
import { emailKey } from '../../../shared/signup';
import { hashKey, newActivationKey, UnknownEmailError, type SubscriptionRow } from '../subscriptions';
import type { Account, Activation, Invitation, OutgoingMail, QueueLimits, SignupState, Subscriptions } from '../types';
import type { Connection, Query } from './connection';
import { enqueueMail } from './mail-queue';

const SIGNUP = 'SELECT email, email_key, invited_at, activated_at, external_provider, external_id FROM signups WHERE email_key = $1';

/** The signup's row, locked until the transaction ends. */
async function lockSignup(query: Query, email: string): Promise<SubscriptionRow | undefined> {
  return (await query<SubscriptionRow>(`${SIGNUP} FOR UPDATE`, [emailKey(email)])).rows[0];
}

/** A fresh key for a signup, recorded as an invitation. */
async function newKey(query: Query, signup: SubscriptionRow, at: string): Promise<string> {
  const key = newActivationKey();
  await query('INSERT INTO activation_keys (key_hash, email_key, created_at) VALUES ($1, $2, $3)', [hashKey(key), signup.email_key, at]);
  await query('UPDATE signups SET invited_at = $1 WHERE email_key = $2', [at, signup.email_key]);
  return key;
}

/** The unique index that keeps one subscription per account (migrations/001-initial.ts). */
const isAccountTaken = (err: unknown) => (err as { code?: string }).code === '23505' && (err as { constraint?: string }).constraint === 'signups_account';

export function createSubscriptions(db: Connection, limits: Pick<QueueLimits, 'mailMaxItems'>, now: () => number): Subscriptions {
  return {
    async issueKey(email) {
      return db.transaction(async (query) => {
        const signup = await lockSignup(query, email);
        if (!signup) throw new UnknownEmailError(`${email.trim()} is not on the waitlist`);
        return newKey(query, signup, new Date(now()).toISOString());
      });
    },

    async invite(email: string, options: { again: boolean; compose: (to: string, key: string) => OutgoingMail }): Promise<Invitation> {
      return db.transaction(async (query): Promise<Invitation> => {
        const signup = await lockSignup(query, email);
        if (!signup) return { outcome: 'not-on-waitlist', email: email.trim() };
        // A key went out already (an invitation, or issue-key), or the subscription is active.
        if ((signup.invited_at || signup.activated_at) && !options.again) return { outcome: 'skipped', email: signup.email };
        const at = now();
        const time = new Date(at).toISOString();
        await query('UPDATE activation_keys SET revoked_at = $1 WHERE email_key = $2 AND revoked_at IS NULL', [time, signup.email_key]);
        // An earlier invitation still waiting carries a key that is now revoked: it must not go out.
        // One a sender holds right now (its lease runs) is already on its way and cannot be recalled.
        await query("DELETE FROM mail WHERE email_key = $1 AND state = 'queued' AND lease_until <= $2", [signup.email_key, at]);
        const key = await newKey(query, signup, time);
        const mail = await enqueueMail(query, limits, at, signup.email_key, options.compose(signup.email, key));
        return { outcome: 'invited', email: signup.email, mail };
      });
    },

    async activate(email: string, key: string, account?: Account): Promise<Activation> {
      try {
        return await db.transaction(async (query): Promise<Activation> => {
          // The signup's row lock first: two activations of one key (say, by two accounts) take
          // turns, and the second sees what the first bound.
          const signup = await lockSignup(query, email);
          if (!signup) return { outcome: 'invalid' };
          const found = await query('SELECT 1 FROM activation_keys WHERE key_hash = $1 AND email_key = $2 AND revoked_at IS NULL', [
            hashKey(key),
            signup.email_key,
          ]);
          if (found.rowCount === 0) return { outcome: 'invalid' };
          if (account) {
            const bound = signup.external_id !== null;
            if (bound && (signup.external_provider !== account.provider || signup.external_id !== account.id)) return { outcome: 'bound-elsewhere' };
            if (!bound) {
              // One subscription per account: an account that already holds another cannot take this one.
              const held = await query('SELECT 1 FROM signups WHERE external_provider = $1 AND external_id = $2', [account.provider, account.id]);
              if (held.rowCount! > 0) return { outcome: 'account-has-one' };
              await query('UPDATE signups SET external_provider = $1, external_id = $2, external_email = $3 WHERE email_key = $4', [
                account.provider,
                account.id,
                account.email ?? null,
                signup.email_key,
              ]);
            }
          }
          await query('UPDATE signups SET activated_at = $1 WHERE email_key = $2 AND activated_at IS NULL', [new Date(now()).toISOString(), signup.email_key]);
          return { outcome: 'active', email: signup.email };
        });
      } catch (err) {
        // The same account binding two other addresses at the same moment, on two replicas: the
        // check above saw neither, the unique index lets one through and refuses the other.
        if (isAccountTaken(err)) return { outcome: 'account-has-one' };
        throw err;
      }
    },

    async stateOf(email: string): Promise<SignupState | undefined> {
      const signup = (await db.query<SubscriptionRow>(SIGNUP, [emailKey(email)])).rows[0];
      if (!signup) return undefined;
      return signup.activated_at ? 'activated' : signup.invited_at ? 'invited' : 'waitlisted';
    },

    async ofAccount(provider: string, id: string) {
      const row = (await db.query<{ email: string }>('SELECT email FROM signups WHERE external_provider = $1 AND external_id = $2', [provider, id])).rows[0];
      return row && { email: row.email };
    },
  };
}
