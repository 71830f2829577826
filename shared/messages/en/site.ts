// English messages every page needs (the spec's texts, exact, misspellings included). The
// reference for every other language: shared/messages/types.ts.
export default {
  skipToContent_: 'Skip to content',
  /** The header's link to the other language: its name, in that language. */
  otherLanguage_: 'Русский',
  betaTag_: 'BETA',
  sourceCode_: 'Source code on GitHub',
  logo_: 'OrgNote logo',
  mainMenu_: 'Main',
  menuButton_: 'Menu',
  navWaitlist_: 'Waitlis', // sic, docs/product.md §2
  navActivate_: 'Activate',

  tagline_: 'From an org-mode lover to org-mode lovers',
  lead_:
    'OrgNote is a free, open-source note-taking app built on the Zettelkasten idea and org-mode. ' +
    'The current version is a prototype: expect bugs.',
  googlePlay_: 'Get it on Google Play',
  download_: 'Download',
  useOnline_: 'Use online',
  preview_: 'App preview',
  previewAlt_: 'OrgNote showing a note with its headings, links and the graph of connected notes',

  plainText_: 'Everything is plain text',
  sampleNote_: 'Sample org-mode note',
  /** Real org-mode: only the prose is a language's, the keywords, IDs and code are not. */
  sample_: `:PROPERTIES:
:ID:       5f1c2a9e-7b3d-4e8a-9c61-2d4f8b0a6e13
:END:
#+TITLE: Zettelkasten in org-mode
#+FILETAGS: :zettelkasten:orgnote:

* Why plain text
Notes stay yours: readable in any editor, diffable, greppable.
See [[id:9a7e4c2b-1f3d-4a5b-8c6d-0e2f4a6b8c1d][Linking notes]] for the next step.

** TODO Sync this note with Emacs
* Literate programming
#+BEGIN_SRC javascript
const notes = ['idea', 'link', 'insight'];
console.log(notes.join(' -> '));
#+END_SRC`,

  features_: 'Features',
  /** The feature cards in order (client/components/FeaturesGrid.tsx adds badges and images). */
  cards_: [
    {
      title_: 'Open Source',
      text_: 'Free software under the GNU GPL v3. Read the code, fork it, improve it.',
    },
    {
      title_: 'Links between notes',
      text_: 'Connect ideas with org-mode id links and explore them as a graph.',
      alt_: 'A graph of notes connected by links',
    },
    { title_: 'Sync with Emacs', text_: 'Keep notes in sync with your Emacs org files.' },
    {
      title_: 'Self hosted',
      note_: 'not tested',
      text_: 'Run your own server and keep your notes at home.',
    },
    { title_: 'Share', text_: 'Publish a note and share it with a link.' },
    {
      title_: 'Extensions',
      note_: 'API under development',
      text_: 'Extend the app with your own code.',
    },
    {
      title_: 'Literate programming',
      note_: 'only javascript supported right now',
      text_: 'Run source blocks right inside your notes.',
    },
  ],
  /** The badges' words; their kind (beta, wip) is the style's. */
  beta_: 'beta',
  wip_: 'wip',

  contacts_: 'Concacts', // sic, docs/product.md §1
  issues_: 'Issue tracker',
  social_: 'Social',
  discussions_: 'Discussions',
  copyright_: (year: number) => `© ${year} OrgNote. Free software under the GNU GPL v3.`,

  congratulations_: 'Congratulations',
  error_: 'Error',
  backToForm_: 'Back to the form',

  privacy_: 'Privacy',
  leave_: 'Leave the waitlist',

  waitlistTitle_: 'Join the waitlist · OrgNote',
  joinHeading_: 'Join wait list',
  email_: 'Email',
  about_: 'About me (or github profile)',
  honeypot_: 'Leave this field empty',
  again_: 'Almost there: press Join again.',
  join_: 'Join',
  joined_: 'You are successfully joined to the wait list. Want to get your invitation faster?',
  patreon_: 'Join patreon',
  confirmMail_: 'Please confirm your address with the link we have mailed you.',

  errorTitle_: 'Unexpected Application Error! · OrgNote',
  errorHeading_: 'Unexpected Application Error!',
  unknownError_: 'Unknown error',
  /** A status the route answered: English says the response's own status text. */
  status_: (status: number, statusText: string) => `${status} ${statusText}`.trim(),
  /** An error thrown while rendering (the server's says only 'Internal Server Error'). */
  thrown_: (message: string) => message,

  // Under a field: the form's own checks (docs/product.md §5) and the server's refusals.
  emailRequired_: 'Email address is required',
  required_: 'Required',
  emailInvalid_: 'Email address is invalid',
  descriptionTooLong_: (max: number) => `Description is longer than ${max} characters`,
  domainRefused_: "Addresses at this domain can't join: please use your own address",
  domainsInvited_: 'Only addresses at invited domains can join',
  domainsAllowed_: (domains: readonly string[]) =>
    `Only addresses at ${new Intl.ListFormat('en-GB', { type: 'disjunction' }).format(domains)} can join`,
} as const;
