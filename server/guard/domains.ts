// The domains an address may not join from: the throwaway ones of the maintained
// disposable-email-domains list (DISPOSABLE_ADDRESSES), and the operator's BLOCKED_EMAIL_DOMAINS
// and ALLOWED_EMAIL_DOMAINS. A listed domain covers its subdomains (mail.mailinator.com), as the
// list's wildcard file implies. Blocked wins over allowed, and an allowed domain is the operator's
// word over the list. The answer is a problem shown under the email field in the page's language
// (in English by the API), never a silent drop.
import { createRequire } from 'node:module';
import { domainToUnicode } from 'node:url';
import { asciiDomain, type Config } from '../config';
import { problemText, type FieldProblem } from '../../shared/field-problems';
import enSite from '../../shared/messages/en/site';

/**
 * The list's two files, each an array of names, as Node loads them. Not imported: an import of a
 * CommonJS module gets a copy with a getter per property (esbuild's __toESM), which for these
 * arrays is 121 000 closures and 15 MB of heap that every running site would keep.
 */
const requireList = (file: string) => createRequire(__filename)(file) as string[];

/** The English sentences of the problems, as the API answers them (shared/field-problems.ts). */
const english = (problem: FieldProblem) => problemText(problem, enSite)!;

export const REFUSED_DOMAIN = english({ code: 'domain-refused' });

/** More allowed domains than this are not spelled out in the message. */
const NAMED_AT_MOST = 3;

/** Built once per process, by the first guard that refuses them: 121 000 names, ~10 MB of heap. */
let disposable: ReadonlySet<string> | undefined;

function disposableSet(): ReadonlySet<string> {
  // A few entries are IDNs written in Unicode; an address's domain is compared in ASCII.
  const ascii = (name: string) => (/^[\x21-\x7e]*$/.test(name) ? name : asciiDomain(name));
  disposable ??= new Set(
    [
      ...requireList('disposable-email-domains'),
      ...requireList('disposable-email-domains/wildcard.json'),
    ].map(ascii),
  );
  return disposable;
}

/** Whether the domain or one of its parents is in the set: one lookup per label. */
function listed(domains: ReadonlySet<string>, domain: string): boolean {
  for (let suffix = domain; ; suffix = suffix.slice(suffix.indexOf('.') + 1)) {
    if (domains.has(suffix)) return true;
    if (!suffix.includes('.')) return false;
  }
}

/** "Only addresses at a.org, b.org or c.org", with the names as people write them. */
function onlyAllowed(allowed: readonly string[]): FieldProblem {
  if (allowed.length > NAMED_AT_MOST) return { code: 'domain-not-invited' };
  return { code: 'domain-not-allowed', domains: allowed.map((name) => domainToUnicode(name)) };
}

/** The problem of an address that may not join, for a page to word; undefined: it may. */
export function domainProblem(config: Config): (email: string) => FieldProblem | undefined {
  const blocked = new Set(config.blockedEmailDomains);
  const allowed = new Set(config.allowedEmailDomains);
  const notAllowed = onlyAllowed(config.allowedEmailDomains);
  const throwaway = config.disposableAddresses === 'refuse' ? disposableSet() : new Set<string>();
  const refused: FieldProblem = { code: 'domain-refused' };
  return (email) => {
    const domain = asciiDomain(email.slice(email.lastIndexOf('@') + 1));
    if (listed(blocked, domain)) return refused;
    if (allowed.size > 0) return listed(allowed, domain) ? undefined : notAllowed;
    return listed(throwaway, domain) ? refused : undefined;
  };
}

/** The English message (the API's) for an address that may not join; undefined: it may. */
export function domainRefusal(config: Config): (email: string) => string | undefined {
  const problemOf = domainProblem(config);
  return (email) => {
    const problem = problemOf(email);
    return problem && english(problem);
  };
}
