// The invitation mail: the activation key, and the activation page with the address filled in.
// The plain-text part carries the key alone on its own line, so it can be copied without picking
// at a sentence.
import type { OutgoingMail } from '../store/mail-queue';
import { leaveUrl, message, SIGNATURE } from './message';

export const INVITATION_SUBJECT = 'Your OrgNote activation key';

/** The activation page with the address already filled in. */
export function activationPageUrl(siteUrl: string, email: string): string {
  return `${siteUrl}/activate?email=${encodeURIComponent(email)}`;
}

/** The whole message for one address, its key and its leave link. */
export function invitationMail(options: {
  siteUrl: string;
  from: string;
  to: string;
  key: string;
  leaveToken: string;
  date?: Date;
}): OutgoingMail {
  const { siteUrl, to, key, leaveToken } = options;
  return message({
    ...options,
    subject: INVITATION_SUBJECT,
    blocks: [
      { text: 'Hello,' },
      {
        text:
          'Thank you for waiting: your free OrgNote subscription is ready. ' +
          'This is your activation key:',
      },
      { key },
      { text: 'Open the activation page (your address is already filled in) and enter the key:' },
      { link: activationPageUrl(siteUrl, to) },
      {
        text:
          `The key works for ${to} only. ` +
          'If you did not join the OrgNote waitlist, you can ignore this message.',
      },
      { text: 'To leave the waitlist and erase your address, open:' },
      { link: leaveUrl(siteUrl, leaveToken) },
      SIGNATURE,
    ],
  });
}
