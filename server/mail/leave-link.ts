// The mail /leave sends on request: the link to take the address off the waitlist. It goes only to
// an address that is on the list, and the page answers the same either way: the mail worker
// writes it after the answer (decision 0021).
import type { Config } from '../config';
import type { OutgoingMail } from '../store/mail-queue';
import { leaveUrl, message, SIGNATURE } from './message';

export const LEAVE_LINK_SUBJECT = 'Your link to leave the OrgNote waitlist';

export function leaveLinkMail(options: {
  siteUrl: string;
  from: string;
  to: string;
  leaveToken: string;
  date?: Date;
}): OutgoingMail {
  const { siteUrl, leaveToken } = options;
  return message({
    ...options,
    subject: LEAVE_LINK_SUBJECT,
    blocks: [
      { text: 'Hello,' },
      {
        text:
          'Someone asked for a link to take this address off the OrgNote waitlist. ' +
          'To leave and erase it, open:',
      },
      { link: leaveUrl(siteUrl, leaveToken) },
      {
        text:
          'The page asks you once more before anything is erased. ' +
          'If you did not ask, you can ignore this message.',
      },
      SIGNATURE,
    ],
  });
}

/** The leave-link mail of the site's settings; none without SITE_URL (a link needs its origin). */
export function leaveLinkMailFor(
  config: Pick<Config, 'siteUrl' | 'mailFrom'>,
): ((to: string, leaveToken: string) => OutgoingMail) | undefined {
  const { siteUrl, mailFrom: from } = config;
  if (!siteUrl) return undefined;
  return (to, leaveToken) => leaveLinkMail({ siteUrl, from, to, leaveToken });
}
