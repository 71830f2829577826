// The confirmation mail of double opt-in (CONFIRM_SIGNUPS=on): one link that opens a page with one
// button; only that button's POST confirms, so a mail scanner following the link confirms nothing.
import { CONFIRM_PATH, TOKEN_PARAM } from '../../shared/address-links';
import type { Config } from '../config';
import type { ConfirmationMail, ConfirmationTokens } from '../store/address-links';
import type { OutgoingMail } from '../store/mail-queue';
import { isMailable, message, SIGNATURE } from './message';

export const CONFIRMATION_SUBJECT = 'Confirm your address for the OrgNote waitlist';

export function confirmUrl(siteUrl: string, token: string): string {
  return `${siteUrl}${CONFIRM_PATH}?${TOKEN_PARAM}=${encodeURIComponent(token)}`;
}

export function confirmationMail(options: {
  siteUrl: string;
  from: string;
  to: string;
  tokens: ConfirmationTokens;
  validHours: number;
  date?: Date;
}): OutgoingMail {
  const { siteUrl, tokens, validHours } = options;
  return message({
    ...options,
    subject: CONFIRMATION_SUBJECT,
    leaveToken: tokens.leave,
    blocks: [
      { text: 'Hello,' },
      {
        text:
          'Someone, hopefully you, put this address on the OrgNote waitlist. ' +
          'To keep your place, confirm it here:',
      },
      { link: confirmUrl(siteUrl, tokens.confirm) },
      {
        text:
          `The link works for ${validHours} hours. If you do nothing, the address is erased ` +
          'then, and we will not write again. If you did not join, you can ignore this message.',
      },
      SIGNATURE,
    ],
  });
}

/**
 * The mail the mail worker writes for each signup due one (store: addressLinks.mailConfirmations);
 * undefined without SITE_URL.
 */
export function confirmationMailFor(
  config: Pick<Config, 'siteUrl' | 'mailFrom' | 'confirmWithinMs'>,
): ConfirmationMail | undefined {
  const { siteUrl, mailFrom: from, confirmWithinMs: validMs } = config;
  if (!siteUrl) return undefined;
  const validHours = Math.round(validMs / 3_600_000);
  return {
    validMs,
    canMail: isMailable,
    compose: (to, tokens) => confirmationMail({ siteUrl, from, to, tokens, validHours }),
  };
}
