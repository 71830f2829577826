// What is wrong with a form field, as data: the server's checks and the bot guard name a problem,
// the API answers it as `code` (with its parameters) beside its English `error`, and a page words
// it in its own language, on the server (the plain form) and in the browser (the form with
// JavaScript) alike.
import type { SiteMessages } from './messages/types';

export type FieldProblem =
  | {
      code:
        | 'email-required'
        /** Off the pattern: the field is marked with no message (docs/product.md §5). */
        | 'email-mismatch'
        | 'email-invalid'
        | 'email-not-one'
        | 'required'
        | 'description-not-one'
        | 'description-not-text'
        /** The address's domain is blocked or a throwaway one (server/guard/domains.ts). */
        | 'domain-refused'
        /** Only ALLOWED_EMAIL_DOMAINS may join, too many to name. */
        | 'domain-not-invited'
        /** A `language` field that names no language of the site (a program's mistake). */
        | 'language-unknown';
    }
  | { code: 'email-too-long' | 'description-too-long'; max: number }
  | { code: 'domain-not-allowed'; domains: string[] };

/**
 * The problem in the words every page carries (a browser's form may meet it); undefined for the
 * problems only the server words (shownText in form-checks.ts), and for a shape from the network
 * this build does not know.
 */
export function problemText(problem: FieldProblem, site: SiteMessages): string | undefined {
  switch (problem.code) {
    case 'email-required':
      return site.emailRequired_;
    case 'email-mismatch':
      return '';
    case 'email-invalid':
      return site.emailInvalid_;
    case 'required':
      return site.required_;
    case 'description-too-long':
      return site.descriptionTooLong_(problem.max);
    case 'domain-refused':
      return site.domainRefused_;
    case 'domain-not-invited':
      return site.domainsInvited_;
    case 'domain-not-allowed':
      return Array.isArray(problem.domains) ? site.domainsAllowed_(problem.domains) : undefined;
  }
  return undefined;
}
