// English messages of /privacy/data, the page a data link opens, which travel in its lazy chunk
// (shared/messages/types.ts). The form that asks for the link is /privacy's (privacy.ts).
export default {
  title_: 'Your data · OrgNote',
  heading_: 'Download your data',
  text_:
    'The file holds everything the OrgNote waitlist keeps about your address: your signup, the ' +
    'mail sent to you and the webhook events about you. The link downloads it once.',
  /** The code field, shown only where the page could not read the code from the link. */
  codeLabel_: 'Code from the mail',
  button_: 'Download my data',
  /** A link that does nothing (client/pages/address-link.tsx), by why. */
  refusedHeading_: 'This link does not work',
  malformed_:
    'This code is incomplete. Open the whole link from the mail, or copy the code it gives.',
  invalid_:
    'This link is not valid. It may be older than a day, or the address may have left the ' +
    'waitlist.',
  expired_: 'This link has expired: it works for a day. Ask for a new one, and we will mail it.',
  spent_: 'This link has been used already: it downloads the file once. Ask for a new one.',
  askNewLink_: 'Ask for a new link',
  backToWaitlist_: 'Back to the waitlist',
} as const;
