// invite: turns waitlisted addresses into invitations. Each address gets a fresh key and its mail
// in one transaction (store/subscriptions.ts), then the mail is sent at once through the pool, a
// window of them in flight, and each address's outcome is reported as it is known. Mail the server
// could not take now stays queued for the running site to retry. Once the server itself is
// unavailable (unreachable, silent, refusing our login), the rest are invited and queued without
// trying: 10 000 connection timeouts in a row would keep the operator waiting for hours.
import type { Config } from '../config';
import { invitationMailFor } from '../mail/invitation';
import { isMailable } from '../mail/message';
import { sendClaimed, type MailOutcome } from '../mail/send';
import { createMailer, SMTP_POOL_SIZE, type Mailer, type MailerConfig } from '../mail/transport';
import type { Store } from '../store';
import { inviteDecision } from '../store/subscriptions';
import type { ComposeInvitation } from '../store/subscriptions';

export type InviteOutcome =
  MailOutcome | 'skipped' | 'unconfirmed' | 'not-on-waitlist' | 'unmailable';
export type DryRunOutcome =
  'would-invite' | 'skipped' | 'unconfirmed' | 'not-on-waitlist' | 'unmailable';

/**
 * Named addresses, or the N oldest waitlisted: confirmed, not invited yet, not undeliverable
 * (`--next N`).
 */
export type InviteTargets = { addresses: string[] } | { next: number };

export interface InviteInput {
  targets: InviteTargets;
  /** Also addresses already invited: a new key, and the old one stops working. */
  again: boolean;
  /** Say what would happen, change nothing. */
  dryRun: boolean;
  /** Told each address's outcome as soon as it is known (10 000 of them take a while). */
  onEach?: (email: string, outcome: InviteOutcome | DryRunOutcome) => void;
}

export interface InviteDeps {
  store: Store;
  config: Pick<Config, 'backendUrl' | 'siteUrl' | 'mailFrom' | 'languages'> & MailerConfig;
  /** The transport for this run, closed when it ends; SMTP_URL's pool or .eml files by default. */
  openMailer?: (config: MailerConfig) => Mailer;
}

export type InviteResult =
  /**
   * Nothing was done: with BACKEND_URL the signups (so invitations) live in the backend; without
   * SITE_URL the mail has no link.
   */
  | { kind: 'refused'; reason: 'backend-owns-signups' | 'no-site-url' }
  | { kind: 'dry-run'; counts: Record<DryRunOutcome, number> }
  | { kind: 'done'; counts: Record<InviteOutcome, number>; mail: { smtp: boolean; where: string } };

/**
 * Sends waiting beyond the pool's connections, so a connection that frees up has the next one
 * ready.
 */
const IN_FLIGHT = SMTP_POOL_SIZE * 4;

export async function invite(deps: InviteDeps, input: InviteInput): Promise<InviteResult> {
  const { store, config } = deps;
  if (config.backendUrl) return { kind: 'refused', reason: 'backend-owns-signups' };
  // The invitation links the activation page: without SITE_URL there is none to link.
  const compose = invitationMailFor(config);
  if (!compose) return { kind: 'refused', reason: 'no-site-url' };

  const addresses =
    'next' in input.targets
      ? await store.signups.oldestWaiting(input.targets.next)
      : input.targets.addresses;
  if (input.dryRun) {
    const counts = {
      'would-invite': 0,
      skipped: 0,
      unconfirmed: 0,
      'not-on-waitlist': 0,
      unmailable: 0,
    };
    await dryRun(store, addresses, input.again, (email, outcome) => {
      counts[outcome]++;
      input.onEach?.(email, outcome);
    });
    return { kind: 'dry-run', counts };
  }

  const counts = {
    sent: 0,
    queued: 0,
    failed: 0,
    skipped: 0,
    unconfirmed: 0,
    'not-on-waitlist': 0,
    unmailable: 0,
  };
  const mailer = (deps.openMailer ?? createMailer)(config);
  try {
    await inviteAll({ store, mailer, compose }, addresses, input.again, (email, outcome) => {
      counts[outcome]++;
      input.onEach?.(email, outcome);
    });
  } finally {
    mailer.close();
  }
  return { kind: 'done', counts, mail: { smtp: Boolean(config.smtpUrl), where: mailer.where } };
}

async function dryRun(
  store: Store,
  addresses: string[],
  again: boolean,
  report: (email: string, outcome: DryRunOutcome) => void,
): Promise<void> {
  for (const email of addresses) {
    const state = await store.subscriptions.stateOf(email);
    const decision = state && inviteDecision(state, again);
    if (decision === undefined) report(email.trim(), 'not-on-waitlist');
    else if (decision !== 'invite') report(email.trim(), decision);
    else report(email.trim(), isMailable(email.trim()) ? 'would-invite' : 'unmailable');
  }
}

interface SendDeps {
  store: Store;
  mailer: Mailer;
  /** The invitation in the signup's language (English where LANGUAGES lacks it). */
  compose: ComposeInvitation;
}

async function inviteAll(
  { store, mailer, compose }: SendDeps,
  addresses: Iterable<string>,
  again: boolean,
  report: (email: string, outcome: InviteOutcome) => void,
): Promise<void> {
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
