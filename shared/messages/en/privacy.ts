// English messages of /privacy, which travel in its lazy chunk (shared/messages/types.ts).
// client/pages/privacy-notice.ts words the recipients from the public config with them.

const NO_ONE_ELSE =
  'It is not given or sold to anyone else, and the site has no tracking, analytics or advertising.';

const plural = new Intl.PluralRules('en');
const days = (count: number) => (plural.select(count) === 'one' ? 'a day' : `${count} days`);

export default {
  title_: 'Privacy · OrgNote',
  heading_: 'Privacy',
  stored_: {
    heading_: 'What is stored',
    text_:
      'When you join the waitlist, this site stores your e-mail address, what you wrote under ' +
      '“About me (or github profile)”, and the times you joined (the first and the last time), ' +
      'confirmed your address, were sent an invitation and activated your subscription.',
  },
  why_: {
    heading_: 'Why',
    text_:
      'To send you an invitation with an activation key, and the mail that comes before it ' +
      '(a link to confirm your address, a link to leave), and for nothing else.',
  },
  howLong_: {
    heading_: 'How long',
    text_:
      'Until you leave the waitlist or the site’s operators remove it. If we ask you to confirm ' +
      'your address and you do not, it is erased when the link expires, after a few days.',
  },
  /** After "How long": what is left once a person left, and the backups' days (public config). */
  afterLeaving_: (backupDays: number): string =>
    'When you leave or your address is erased, the site keeps only a keyed hash of it, never ' +
    'the address, so that importing an old list cannot add you again; signing up again ' +
    'yourself removes it. Backup copies made before you left keep your address until they are ' +
    `replaced, at most ${days(backupDays)} later.`,
  /** Where a signup came from (docs/decisions/0035-where-signups-come-from.md). */
  source_: {
    heading_: 'Where you came from',
    text_:
      'If the link that brought you here has UTM tags (utm_source, utm_medium, utm_campaign), ' +
      'or another site linked you here, we store that with your signup: the tags as the link ' +
      'has them, and of the other site only its domain, never the page you came from. It tells ' +
      'us where to tell people about OrgNote next. Only your first signup counts: joining ' +
      'again does not change it. The site sets no cookie and keeps nothing in your browser for ' +
      'this: the page only carries it to the form while you are here.',
  },
  whoSeesItHeading_: 'Who sees it',
  /** No webhook endpoint receives addresses. */
  onlyOperators_: `Only the people who run this site. ${NO_ONE_ELSE}`,
  /** `recipients`: the services' names and the unnamed ones, as a list (Intl.ListFormat). */
  operatorsAnd_: (recipients: string): string =>
    'The people who run this site, and the services they send your e-mail address to when you ' +
    `join the waitlist or your place on it changes: ${recipients}. ${NO_ONE_ELSE}`,
  /**
   * The endpoints with no name (stored before endpoints had names), counted by host; the second
   * argument says the list names others before them (Russian says «ещё»; English needs nothing).
   */
  unnamed_: (count: number, _afterNames: boolean): string =>
    plural.select(count) === 'one' ? 'a service of theirs' : `${count} services of theirs`,
  leaveHeading_: 'How to leave',
  /** A sentence around the link to /leave. */
  leave_: {
    before_: '',
    link_: 'Leave the waitlist',
    after_: ' at any time; what is stored about you goes with it.',
  },
  /** A person's own data: the form that mails a link to download it (shared/data-requests.ts). */
  dataRequest_: {
    heading_: 'Your data',
    text_:
      'We can mail you a file with everything this site holds about your address: what you ' +
      'wrote and when, where your place stands, the mail we sent you, and the services your ' +
      'address was sent to.',
    emailLabel_: 'Email address',
    button_: 'Send me what you hold about me',
    /** After the form is sent: the same whether or not the address is on the waitlist. */
    sent_: (hours: number): string =>
      'If this address is on the waitlist, we have sent it a link to download its data. ' +
      `The link works once, for ${hours} hours.`,
    /** Under the address field, by why the request was refused (shared/data-requests.ts). */
    required_: 'Email address is required',
    notAnAddress_: 'This is not an email address',
    busy_: 'Too many messages are waiting to be sent; please try again later',
    unavailable_: 'The waitlist is unavailable right now; please try again shortly',
  },
  contactHeading_: 'Contact',
  /** A sentence around the contact's address. */
  contact_: { before_: 'Questions about your data: write to ', after_: '.' },
} as const;
