// The links mailed to an address, for both engines: a confirmation link (double opt-in) and a leave
// link (every mail's List-Unsubscribe, and the one /leave mails on request). A confirmation link
// works for CONFIRM_WITHIN_HOURS and once; a leave link works as long as the address is stored (an
// unsubscribe link in an old invitation must still work, RFC 8058), and leaving erases it with
// everything else. Here: what a link is worth and what following it does; its token in tokens.ts,
// the mails that carry links in mail.ts.
import type { LinkCheck, LinkPurpose, LinkRefusal, LinkUse } from '../../../shared/address-links';
import type { Sql } from '../sql';
import { emitSignupEvent, SIGNUP_OF_EVENT, type SignupOfEvent } from '../webhooks/signup-events';
import type { LinkMail } from './mail';
import { lookUp } from './tokens';

export { createLinkMail } from './mail';
export type {
  ComposeLeaveMail,
  ConfirmationMail,
  ConfirmationTokens,
  LeaveLinksMailed,
  WelcomeMail,
} from './mail';

/** The links mailed to an address (confirm, leave): tokens kept only as hashes. */
export interface AddressLinks extends LinkMail {
  /** What a token is worth for `purpose`, without using it. */
  check(purpose: LinkPurpose, token: string): Promise<LinkCheck>;
  /**
   * Confirms the address a confirmation link was mailed to, and spends the link. With `welcome`,
   * the address's first confirmation makes a welcome mail due, recorded in the same transaction.
   */
  confirm(token: string, options?: { welcome?: boolean }): Promise<LinkUse>;
  /** The address a good leave link belongs to; the caller erases it (waitlist/remove.ts). */
  leaver(token: string): Promise<{ ok: true; email: string } | { ok: false; refusal: LinkRefusal }>;
}

/** The links, with the mails that carry them (createLinkMail). */
export function createAddressLinks(sql: Sql, now: () => number, linkMail: LinkMail): AddressLinks {
  return {
    ...linkMail,

    async check(purpose, token) {
      const found = await lookUp(sql, purpose, token, now());
      if (typeof found === 'string') return { ok: false, refusal: found };
      return { ok: true, subscriptionActive: found.activated_at !== null };
    },

    async confirm(token, { welcome = false } = {}) {
      return sql.transaction(async (tx) => {
        const at = now();
        const found = await lookUp(tx, 'confirm', token, at, sql.lockRows);
        if (typeof found === 'string') return { ok: false, refusal: found };
        const time = new Date(at).toISOString();
        // Only the update that confirms makes the welcome and the event due: an address confirmed
        // already (a second link, a replica racing under the row's lock) matches no row here.
        const confirmed = await tx.query<SignupOfEvent>(
          `UPDATE signups
           SET confirmed_at = $1, welcome_due_at = $3
           WHERE email_key = $2 AND confirmed_at IS NULL
           RETURNING ${SIGNUP_OF_EVENT}`,
          [time, found.email_key, welcome ? time : null],
        );
        if (confirmed.rows.length === 1)
          await emitSignupEvent(tx, 'signup.confirmed', confirmed.rows[0], at);
        // Every confirmation link of the address is spent: a second one mailed later confirms
        // nothing more.
        await tx.query(
          `UPDATE address_tokens
           SET used_at = $1
           WHERE email_key = $2 AND purpose = 'confirm' AND used_at IS NULL`,
          [time, found.email_key],
        );
        return { ok: true };
      });
    },

    async leaver(token) {
      const found = await lookUp(sql, 'leave', token, now());
      if (typeof found === 'string') return { ok: false, refusal: found };
      return { ok: true, email: found.email };
    },
  };
}
