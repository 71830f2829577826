// `waitlist invite`: turns waitlisted addresses into invitations. Each address gets a fresh key
// and its mail in one transaction (store/subscriptions.ts), then the mail is sent at once through
// the pool, a window of them in flight, and one line per address says what happened. Mail the
// server could not take now stays queued for the running site to retry. Once the server itself is
// unavailable (unreachable, silent, refusing our login), the rest are invited and queued without
// trying: 10 000 connection timeouts in a row would keep the operator waiting for hours.
import type { Config } from '../config';
import { invitationMail, isMailable } from '../mail/invitation';
import { sendClaimed, type MailOutcome } from '../mail/send';
import { SMTP_POOL_SIZE, type Mailer } from '../mail/transport';
import type { Store } from '../store';

export type InviteOutcome = MailOutcome | 'skipped' | 'not-on-waitlist' | 'unmailable';

interface InviteDeps {
  store: Store;
  config: Pick<Config, 'siteUrl' | 'mailFrom'> & { siteUrl: string };
  mailer: Mailer;
}

/** Sends waiting beyond the pool's connections, so a connection that frees up has the next one ready. */
const IN_FLIGHT = SMTP_POOL_SIZE * 4;

/** What each outcome prints, padded so the addresses line up. */
export const OUTCOME_LABELS: Record<InviteOutcome | 'would-invite', string> = {
  sent: 'sent',
  queued: 'queued',
  failed: 'failed',
  skipped: 'skipped',
  'not-on-waitlist': 'not on the waitlist',
  unmailable: 'cannot be mailed',
  'would-invite': 'would invite',
};

/** --dry-run: what invite would do, changing nothing. */
export async function dryRun(store: Store, addresses: string[], again: boolean, report: (email: string, outcome: InviteOutcome | 'would-invite') => void): Promise<void> {
  for (const email of addresses) {
    const state = await store.subscriptions.stateOf(email);
    if (state === undefined) report(email.trim(), 'not-on-waitlist');
    else if (state !== 'waitlisted' && !again) report(email.trim(), 'skipped');
    else report(email.trim(), isMailable(email.trim()) ? 'would-invite' : 'unmailable');
  }
}

export async function inviteAll(
  { store, config, mailer }: InviteDeps,
  addresses: Iterable<string>,
  again: boolean,
  report: (email: string, outcome: InviteOutcome) => void,
): Promise<void> {
  const compose = (to: string, key: string) => invitationMail({ siteUrl: config.siteUrl, from: config.mailFrom, to, key });
  const inFlight = new Set<Promise<void>>();
  let serverUnavailable = false;
  try {
    for (const address of addresses) {
      await inviteOne(address);
    }
  } finally {
    // Whatever stopped the loop, sends already handed to the pool finish and are recorded
    // before the caller closes the pool and the store.
    await Promise.allSettled(inFlight);
  }

  async function inviteOne(address: string): Promise<void> {
    // Checked before a key exists: such an address would be mailed somewhere else, or nowhere.
    if (!isMailable(address.trim()) && (await store.subscriptions.stateOf(address)) !== undefined) {
      report(address.trim(), 'unmailable');
      return;
    }
    const invitation = await store.subscriptions.invite(address, { again, compose });
    if (invitation.outcome !== 'invited') {
      report(invitation.email, invitation.outcome);
      return;
    }
    if (serverUnavailable) {
      await store.mail.release(invitation.mail.id);
      report(invitation.email, 'queued');
      return;
    }
    const sending: Promise<void> = sendClaimed(store.mail, mailer, invitation.mail).then((sent) => {
      inFlight.delete(sending);
      serverUnavailable ||= sent.serverUnavailable;
      report(invitation.email, sent.outcome);
    });
    inFlight.add(sending);
    if (inFlight.size >= IN_FLIGHT) await Promise.race(inFlight);
  }
}
