// The text of '/privacy', apart from the page that lays it out; both are the
// lazy chunk only visitors of /privacy load (client/routes.tsx).

const NO_ONE_ELSE =
  'It is not given or sold to anyone else, and the site has no tracking, analytics or advertising.';

/**
 * Who sees the data: the operators, and the services their webhook endpoints send addresses to,
 * by the names the operators gave them (public config `addressRecipients`), listed as a sentence
 * says them.
 */
function whoSeesIt(addressRecipients: readonly string[]): string {
  if (addressRecipients.length === 0) return `Only the people who run this site. ${NO_ONE_ELSE}`;
  const names = new Intl.ListFormat('en', { type: 'conjunction' }).format(addressRecipients);
  return (
    'The people who run this site, and the services they send your e-mail address to when you ' +
    `join the waitlist or your place on it changes: ${names}. ${NO_ONE_ELSE}`
  );
}

export const PRIVACY_NOTICE = {
  sections: [
    [
      'What is stored',
      'When you join the waitlist, this site stores your e-mail address, what you wrote under ' +
        '“About me (or github profile)”, and the times you joined (the first and the last time), ' +
        'confirmed your address, were sent an invitation and activated your subscription.',
    ],
    [
      'Why',
      'To send you an invitation with an activation key, and the mail that comes before it ' +
        '(a link to confirm your address, a link to leave), and for nothing else.',
    ],
    [
      'How long',
      'Until you leave the waitlist or the site’s operators remove it. If we ask you to confirm ' +
        'your address and you do not, it is erased when the link expires, after a few days.',
    ],
  ],
  whoSeesIt: {
    heading: 'Who sees it',
    text: whoSeesIt,
  },
  leave: {
    heading: 'How to leave',
    link: 'Leave the waitlist',
    rest: ' at any time; what is stored about you goes with it.',
  },
  contact: { heading: 'Contact', text: 'Questions about your data: write to ' },
};

export type PrivacyNotice = typeof PRIVACY_NOTICE;
