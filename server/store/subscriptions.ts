// Activation keys and the subscriptions they open, for both engines. A key is stored only as a
// hash (a copied database activates nobody) and shown once: on the CLI (issue-key) or in the
// invitation mail, which is queued in the same transaction as the key it carries. A subscription
// belongs to a waitlisted address; activating it may bind it to one OrgNote account, which the
// OrgNote backend later asks about (subscription-info). Every transaction first locks the
// signup's row, so an invitation, an activation and an erasure of one address take turns, on
// one replica or several. An invitation and a first activation queue their webhook events
// (invitation.sent, subscription.activated) in the same transaction.
import { emailKey } from '../../shared/form-checks';
import type { Language } from '../../shared/i18n/languages';
import { issueToken } from './address-links/tokens';
import type { MailQueueWriter, OutgoingMail, QueuedMail } from './mail-queue';
import { hashSecret, newSecret } from './secrets';
import type { SignupState } from './signups';
import type { Queryable, Sql } from './sql';
import { emitSignupEvent, SIGNUP_OF_EVENT, type SignupOfEvent } from './webhooks/signup-events';

/** issueKey for an address that is not on the waitlist. */
export class UnknownEmailError extends Error {}

/** The OrgNote account a subscription is bound to: its sign-in provider and its id there. */
export interface Account {
  provider: string;
  id: string;
  email?: string;
}

export type Invitation =
  | { outcome: 'invited'; email: string; mail: QueuedMail }
  | { outcome: 'skipped'; email: string }
  /** Not confirmed yet (CONFIRM_SIGNUPS=on): never invited, named or not. */
  | { outcome: 'unconfirmed'; email: string }
  | { outcome: 'not-on-waitlist'; email: string };

/**
 * Writes an invitation around its secrets: the activation key, and the leave link's token
 * (List-Unsubscribe), in the signup's language.
 */
export type ComposeInvitation = (
  to: string,
  key: string,
  leaveToken: string,
  language: Language,
) => OutgoingMail;

export type Activation =
  | { outcome: 'active'; email: string }
  | { outcome: 'invalid' }
  | { outcome: 'bound-elsewhere' }
  | { outcome: 'account-has-one' };

export interface Subscriptions {
  /** Creates a new activation key for a waitlisted address and returns it (shown once). */
  issueKey(email: string): Promise<string>;
  /**
   * Invites a waitlisted address: revokes any earlier key (and drops a first mail still waiting),
   * makes a new key and queues the mail `compose` writes around it, all in one transaction. An
   * address already invited is skipped unless `again`; an unconfirmed one always is. An
   * undeliverable one is invited (the operator named it), and the mark is cleared. The queued mail
   * is claimed for the caller.
   */
  invite(
    email: string,
    options: { again: boolean; compose: ComposeInvitation },
  ): Promise<Invitation>;
  /**
   * Checks a key against the address it was issued for and activates that subscription, bound to
   * `account` when one is given. The same account (or none) may repeat it.
   */
  activate(email: string, key: string, account?: Account): Promise<Activation>;
  /** Where an address stands, without changing anything (invite --dry-run). */
  stateOf(email: string): Promise<SignupState | undefined>;
  /** The subscription bound to an account, if any. */
  ofAccount(provider: string, id: string): Promise<{ email: string } | undefined>;
}

/** What is read of a signup to invite or activate it, and to tell the webhooks. */
interface SubscriptionRow extends SignupOfEvent {
  state: SignupState;
  external_provider: string | null;
  external_id: string | null;
}

const SIGNUP = `SELECT ${SIGNUP_OF_EVENT}, external_provider, external_id
  FROM signups
  WHERE email_key = $1`;

/**
 * Whether an address in `state` is invited: the one rule invite and its dry run share. Never an
 * unconfirmed one; one a key went to already (an invitation, or issue-key) or whose subscription is
 * active only `again`; an undeliverable one when named (the operator decided to try it again).
 */
export function inviteDecision(
  state: SignupState,
  again: boolean,
): 'invite' | 'skipped' | 'unconfirmed' {
  if (state === 'unconfirmed') return 'unconfirmed';
  if ((state === 'invited' || state === 'activated') && !again) return 'skipped';
  return 'invite';
}

/** The unique index that keeps one subscription per account. */
const ONE_PER_ACCOUNT = 'signups_account';

export function createSubscriptions(
  sql: Sql,
  mail: MailQueueWriter,
  now: () => number,
): Subscriptions {
  /** The signup's row, locked until the transaction ends. */
  async function lockSignup(tx: Queryable, email: string): Promise<SubscriptionRow | undefined> {
    return (await tx.query<SubscriptionRow>(`${SIGNUP}${sql.lockRows}`, [emailKey(email)])).rows[0];
  }

  /** A fresh key for a signup, recorded as an invitation. */
  async function newKey(tx: Queryable, signup: SubscriptionRow, at: string): Promise<string> {
    const key = newSecret();
    await tx.query(
      `INSERT INTO activation_keys (key_hash, email_key, created_at)
       VALUES ($1, $2, $3)`,
      [hashSecret(key), signup.email_key, at],
    );
    await tx.query(
      `UPDATE signups
       SET invited_at = $1
       WHERE email_key = $2`,
      [at, signup.email_key],
    );
    return key;
  }

  return {
    async issueKey(email) {
      return sql.transaction(async (tx) => {
        const signup = await lockSignup(tx, email);
        if (!signup) throw new UnknownEmailError(`${email.trim()} is not on the waitlist`);
        return newKey(tx, signup, new Date(now()).toISOString());
      });
    },

    async invite(
      email: string,
      options: { again: boolean; compose: ComposeInvitation },
    ): Promise<Invitation> {
      return sql.transaction(async (tx): Promise<Invitation> => {
        const signup = await lockSignup(tx, email);
        if (!signup) return { outcome: 'not-on-waitlist', email: email.trim() };
        const decision = inviteDecision(signup.state, options.again);
        if (decision !== 'invite') return { outcome: decision, email: signup.email };
        const at = now();
        const time = new Date(at).toISOString();
        await tx.query(
          `UPDATE activation_keys
           SET revoked_at = $1
           WHERE email_key = $2 AND revoked_at IS NULL`,
          [time, signup.email_key],
        );
        await tx.query(
          `UPDATE signups
           SET undeliverable_at = NULL
           WHERE email_key = $1`,
          [signup.email_key],
        );
        await mail.dropWaiting(tx, signup.email_key, at);
        const key = await newKey(tx, signup, time);
        const leave = await issueToken(tx, signup.email_key, 'leave', at);
        await emitSignupEvent(tx, 'invitation.sent', { ...signup, state: 'invited' }, at);
        return {
          outcome: 'invited',
          email: signup.email,
          mail: await mail.enqueue(
            tx,
            signup.email_key,
            options.compose(signup.email, key, leave, signup.language),
            { kind: 'invitation' },
          ),
        };
      });
    },

    async activate(email: string, key: string, account?: Account): Promise<Activation> {
      try {
        return await sql.transaction(async (tx): Promise<Activation> => {
          // The signup's row lock first: two activations of one key (say, by two accounts) take
          // turns, and the second sees what the first bound.
          const signup = await lockSignup(tx, email);
          if (!signup) return { outcome: 'invalid' };
          const found = await tx.query(
            `SELECT 1 AS found
             FROM activation_keys
             WHERE key_hash = $1 AND email_key = $2 AND revoked_at IS NULL`,
            [hashSecret(key), signup.email_key],
          );
          if (found.rows.length === 0) return { outcome: 'invalid' };
          if (account) {
            const bound = signup.external_id !== null;
            if (
              bound &&
              (signup.external_provider !== account.provider || signup.external_id !== account.id)
            )
              return { outcome: 'bound-elsewhere' };
            if (!bound) {
              // One subscription per account: an account that already holds another cannot take
              // this one.
              const held = await tx.query(
                `SELECT 1 AS held
                 FROM signups
                 WHERE external_provider = $1 AND external_id = $2`,
                [account.provider, account.id],
              );
              if (held.rows.length > 0) return { outcome: 'account-has-one' };
              await tx.query(
                `UPDATE signups
                 SET external_provider = $1, external_id = $2, external_email = $3
                 WHERE email_key = $4`,
                [account.provider, account.id, account.email ?? null, signup.email_key],
              );
            }
          }
          const at = now();
          const first = await tx.query(
            `UPDATE signups
             SET activated_at = $1
             WHERE email_key = $2 AND activated_at IS NULL`,
            [new Date(at).toISOString(), signup.email_key],
          );
          if (first.rowCount === 1)
            await emitSignupEvent(
              tx,
              'subscription.activated',
              { ...signup, state: 'activated' },
              at,
            );
          return { outcome: 'active', email: signup.email };
        });
      } catch (err) {
        // The same account binding two other addresses at the same moment, on two replicas: the
        // check above saw neither, the unique index lets one through and refuses the other.
        if (sql.isUniqueViolation(err, ONE_PER_ACCOUNT)) return { outcome: 'account-has-one' };
        throw err;
      }
    },

    async stateOf(email: string): Promise<SignupState | undefined> {
      return (await sql.query<SubscriptionRow>(SIGNUP, [emailKey(email)])).rows[0]?.state;
    },

    async ofAccount(provider: string, id: string) {
      const row = (
        await sql.query<{ email: string }>(
          `SELECT email
           FROM signups
           WHERE external_provider = $1 AND external_id = $2`,
          [provider, id],
        )
      ).rows[0];
      return row && { email: row.email };
    },
  };
}
