// The domains an address may not join from: the throwaway ones of the maintained
// disposable-email-domains list (DISPOSABLE_ADDRESSES), and the operator's BLOCKED_EMAIL_DOMAINS
// and ALLOWED_EMAIL_DOMAINS. A listed domain covers its subdomains (mail.mailinator.com), as the
// list's wildcard file implies. Blocked wins over allowed, and an allowed domain is the operator's
// word over the list. The answer is a message under the email field, never a silent drop.
import { createRequire } from 'node:module';
import { domainToUnicode } from 'node:url';
import { asciiDomain, type Config } from '../config';

/**
 * The list's two files, each an array of names, as Node loads them. Not imported: an import of a
 * CommonJS module gets a copy with a getter per property (esbuild's __toESM), which for these
 * arrays is 121 000 closures and 15 MB of heap that every running site would keep.
 */
const requireList = (file: string) => createRequire(__filename)(file) as string[];

export const REFUSED_DOMAIN = "Addresses at this domain can't join: please use your own address";

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

/** "Only addresses at a.org, b.org or c.org can join", with the names as people write them. */
function onlyAllowedMessage(allowed: readonly string[]): string {
  if (allowed.length > NAMED_AT_MOST) return 'Only addresses at invited domains can join';
  const names = allowed.map((name) => domainToUnicode(name));
  const last = names.pop();
  const list = names.length > 0 ? `${names.join(', ')} or ${last}` : last;
  return `Only addresses at ${list} can join`;
}

/** The message shown under the email field for an address that may not join; undefined: it may. */
export function domainRefusal(config: Config): (email: string) => string | undefined {
  const blocked = new Set(config.blockedEmailDomains);
  const allowed = new Set(config.allowedEmailDomains);
  const onlyAllowed = onlyAllowedMessage(config.allowedEmailDomains);
  const throwaway = config.disposableAddresses === 'refuse' ? disposableSet() : new Set<string>();
  return (email) => {
    const domain = asciiDomain(email.slice(email.lastIndexOf('@') + 1));
    if (listed(blocked, domain)) return REFUSED_DOMAIN;
    if (allowed.size > 0) return listed(allowed, domain) ? undefined : onlyAllowed;
    return listed(throwaway, domain) ? REFUSED_DOMAIN : undefined;
  };
}
