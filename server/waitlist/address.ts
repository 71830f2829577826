// A person in control of their own address: confirming it by the mailed link, leaving by
// a leave link (every mail's List-Unsubscribe, or one asked for on /leave), and the running site
// erasing an address nobody confirmed in time. Leaving and expiry erase exactly as
// `waitlist remove` does (remove.ts), .eml copies included.
import type { LeaveLinkRequest, LinkCheck, LinkPurpose, LinkUse } from '../../shared/address-links';
import { checkEmail, NOT_TEXT } from '../../shared/validation';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { isMailable } from '../mail/message';
import { NO_METRICS, type Metrics } from '../metrics';
import type { Store } from '../store';
import { remove } from './remove';

export interface AddressDeps {
  store: Pick<Store, 'addressLinks' | 'erase' | 'signups'>;
  config: Pick<
    Config,
    'siteUrl' | 'mailFrom' | 'dataDir' | 'backendUrl' | 'confirmWithinMs' | 'welcomeMail'
  >;
  logger: Logger;
  metrics?: Pick<Metrics, 'address'>;
  /** Told when a mail was queued, so the mail worker sends it now. */
  wakeMail?: () => void;
  /** Told when a webhook event was queued, so the webhook worker sends it now. */
  wakeWebhooks?: () => void;
}

/** What a link is worth, without using it (the GET of /confirm and /leave). */
export function checkLink(
  { store }: Pick<AddressDeps, 'store'>,
  purpose: LinkPurpose,
  token: string,
): Promise<LinkCheck> {
  return store.addressLinks.check(purpose, token);
}

export async function confirmAddress(
  { store, config, logger, metrics = NO_METRICS, wakeMail, wakeWebhooks }: AddressDeps,
  token: string,
): Promise<LinkUse> {
  const welcome = config.welcomeMail;
  const used = await store.addressLinks.confirm(token, { welcome });
  if (used.ok) metrics.address('confirmed');
  // The welcome it may be due and its signup.confirmed go out now rather than at the next polls.
  if (used.ok && welcome) wakeMail?.();
  if (used.ok) wakeWebhooks?.();
  logger.info(
    { event: 'confirm', ok: used.ok, refusal: used.ok ? undefined : used.refusal },
    'confirmation link used',
  );
  return used;
}

/** The one-click leave: everything about the address is erased, as `waitlist remove` erases it. */
export async function leaveByLink(deps: AddressDeps, token: string): Promise<LinkUse> {
  const { store, logger, metrics = NO_METRICS } = deps;
  const leaver = await store.addressLinks.leaver(token);
  if (!leaver.ok) {
    logger.info({ event: 'leave', ok: false, refusal: leaver.refusal }, 'leave link refused');
    return leaver;
  }
  await remove(deps, leaver.email, { reason: 'left' });
  deps.wakeWebhooks?.();
  metrics.address('left');
  logger.info({ event: 'leave', ok: true }, 'an address left the waitlist');
  return { ok: true };
}

/**
 * /leave's form: records the request, and the mail worker mails a leave link if the address is on
 * the list. The answer and the work before it are the same either way, so neither the page nor its
 * timing tells who is on it (decision 0021). Only a malformed address is refused.
 */
export function requestLeaveLink(
  deps: AddressDeps,
  fields: Record<string, unknown>,
): Promise<LeaveLinkRequest> {
  return requestLink(deps, fields, 'leave-link', (email) =>
    deps.store.addressLinks.askLeaveLink(email),
  );
}

/**
 * A form that asks for a link to be mailed (/leave's, /privacy's): `record` stores the request
 * with one insert, listed or not; the mail worker looks the address up and mails the link. A full
 * queue (QueueFullError, a 503 page) is full for every address alike.
 */
export async function requestLink(
  deps: Pick<AddressDeps, 'logger' | 'wakeMail'> & {
    config: Pick<Config, 'siteUrl' | 'backendUrl'>;
  },
  fields: Record<string, unknown>,
  event: 'leave-link' | 'data-link',
  record: (email: string) => Promise<void>,
): Promise<LeaveLinkRequest> {
  const { config, logger } = deps;
  const typed = typeof fields.email === 'string' ? fields.email.trim() : '';
  if (NOT_TEXT.test(typed) || checkEmail(typed) !== undefined)
    return { ok: false, email: typed, refusal: typed ? 'not-an-address' : 'required', status: 400 };
  // With BACKEND_URL the backend keeps the signups; without SITE_URL a link would have no origin.
  if (config.backendUrl || !config.siteUrl) {
    logger.warn(
      { event, reason: config.backendUrl ? 'backend-owns-signups' : 'no-site-url' },
      `no ${event.replace('-', ' ')} can be mailed`,
    );
    return { ok: true };
  }
  // An address mail syntax would read as another ('evil,victim@x.org') is never mailed.
  if (!isMailable(typed)) return { ok: true };
  await record(typed);
  deps.wakeMail?.();
  return { ok: true };
}

/** Addresses the sweep erases in one round at most; the next round takes the rest. */
export const SWEEP_BATCH = 100;

/**
 * Erases the addresses still unconfirmed whose every confirmation link has expired; returns how
 * many. Each is checked again under its row's lock, so one confirmed meanwhile stays.
 */
export async function sweepUnconfirmed(deps: AddressDeps, now: number): Promise<number> {
  const { store, config, logger, metrics = NO_METRICS } = deps;
  const expired = await store.signups.expiredUnconfirmed(
    new Date(now - config.confirmWithinMs).toISOString(),
    SWEEP_BATCH,
  );
  let erased = 0;
  for (const email of expired) {
    const removed = await remove(deps, email, { onlyIfExpired: true });
    if (removed.kind === 'removed' && removed.signup) {
      erased++;
      metrics.address('expired');
    }
  }
  if (erased > 0)
    logger.info({ event: 'expired', erased }, 'erased addresses nobody confirmed in time');
  return erased;
}
