// English messages of /leave, which travel in its lazy chunk (shared/messages/types.ts).
export default {
  title_: 'Leave the waitlist · OrgNote',
  // Leaving by link.
  heading_: 'Leave the waitlist',
  erases_: 'Leaving erases:',
  erasesAddress_: 'your address and what you wrote about yourself;',
  erasesPlace_: 'your place on the waitlist;',
  erasesKey_: 'any activation key we sent you;',
  erasesMail_: 'mail still waiting to be sent to you.',
  subscriptionEnds_: 'Your free subscription is active: leaving ends it.',
  button_: 'Leave the waitlist',
  leftHeading_: 'You have left the waitlist',
  left_: 'Everything we kept about your address is erased. You are welcome back at any time.',
  // Asking for a link.
  askHeading_: 'Leave the waitlist',
  ask_: 'Enter the address you joined with, and we will mail it a link to leave.',
  emailLabel_: 'Email address',
  send_: 'Send me a link',
  sentHeading_: 'Check your inbox',
  sent_: 'If this address is on the waitlist, we have sent it a link. Open it to leave.',
  /** Under the address field, by why the request was refused (shared/address-links.ts). */
  required_: 'Email address is required',
  notAnAddress_: 'This is not an email address',
  busy_: 'Too many invitations are waiting to be sent',
  unavailable_: 'The waitlist is unavailable right now; please try again shortly',
  /** A link that does nothing (client/pages/address-link.tsx), by why. */
  refusedHeading_: 'This link does not work',
  malformed_:
    'This link is incomplete. Copy the whole link from the mail into your browser’s address bar.',
  invalid_:
    'This link is not valid. If you followed a link from our mail, you may have left the ' +
    'waitlist already.',
  expired_: 'This link has expired. Ask for a new one, and we will mail it to you.',
  spent_: 'This link has been used already: the address has left the waitlist.',
  askNewLink_: 'Ask for a new link to leave',
  backToWaitlist_: 'Back to the waitlist',
} as const;
