// English messages of /confirm, which travel in its lazy chunk (shared/messages/types.ts).
export default {
  title_: 'Confirm your address · OrgNote',
  heading_: 'Confirm your address',
  ask_: 'Press the button to confirm that this address is yours; the invitation will go to it.',
  button_: 'Confirm my address',
  confirmedHeading_: 'Your address is confirmed',
  confirmed_: 'Thank you. We will write to you when your invitation is ready.',
  /** A link that does nothing (client/pages/address-link.tsx), by why. */
  refusedHeading_: 'This link does not work',
  malformed_:
    'This link is incomplete. Copy the whole link from the mail into your browser’s address bar.',
  invalid_: 'This link is not valid.',
  expired_: 'This link has expired. Join the waitlist again, and we will send you a new one.',
  spent_: 'This link has been used already: your address is confirmed.',
  backToWaitlist_: 'Back to the waitlist',
} as const;
