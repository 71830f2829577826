// English messages every page needs (the spec's texts, exact, misspellings included). The
// reference for every other language: shared/messages/types.ts.
export default {
  skipToContent_: 'Skip to content',
  /** The header's link to the other language: its name, in that language. */
  otherLanguage_: 'Русский',
} as const;
