// English messages of /activate, which travel in its lazy chunk (shared/messages/types.ts): the
// form, its views, and the page the form without JavaScript gets back when something is wrong
// (server/pages/activation-open.ts). The spec's texts, exact, misspellings included.
export default {
  title_: 'Activate your subscription · OrgNote',
  heading_: 'Enter your activation key',
  emailLabel_: 'Email',
  keyLabel_: 'Activation key',
  submit_: 'Activate',
  /** Under the fields (shared/validation.ts words them in English for every form). */
  emailRequired_: 'Email address is required',
  keyRequired_: 'Required',
  activatedTitle_: 'Congratulations',
  // sic, docs/product.md §4
  activated_: 'You are successfully activated your free subscription',
  blockedTitle_: 'One more step',
  blocked_: 'Your browser blocked the new tab. Open the activation page to finish:',
  openPage_: 'Open the activation page',
  errorTitle_: 'Error',
  /** What opening the tab threw; product §8 shows it as it is. */
  failed_: (reason: string): string => reason,
  // The page without JavaScript: the API's sentences, with the form's name for the key.
  emailNotOne_: 'Email must be a single text value',
  emailTooLong_: (max: number): string => `Email address is longer than ${max} characters`,
  emailInvalid_: 'Email address is invalid',
  keyMissing_: 'Activation key: Required',
  keyInvalid_: 'Invalid activation key',
  backToForm_: 'Back to the activation form',
} as const;
