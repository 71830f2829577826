// The config the server runs with: the settings, with the defaults that depend on other settings
// filled in (a From address from SITE_URL, DKIM's domain from it, the privacy contact).
import type { KeyObject } from 'node:crypto';
import type { Settings } from './settings';

/** What nodemailer's `dkim` option takes; the same three values `waitlist dns` publishes. */
export interface DkimSigning {
  domainName: string;
  keySelector: string;
  privateKey: KeyObject;
}

/** Defaults that depend on another setting. */
export function withDerivedDefaults(settings: Settings) {
  const mailFrom = settings.mailFrom ?? defaultMailFrom(settings.siteUrl);
  const dkim: DkimSigning | undefined =
    settings.dkimPrivateKey && settings.dkimSelector
      ? {
          domainName: settings.dkimDomain ?? domainOf(mailFrom),
          keySelector: settings.dkimSelector,
          privateKey: settings.dkimPrivateKey,
        }
      : undefined;
  return { ...settings, mailFrom, dkim, privacyContact: settings.privacyContact ?? mailFrom };
}

export type Config = ReturnType<typeof withDerivedDefaults>;

/** Without MAIL_FROM: a no-reply address at the site's own host, so replies go nowhere quietly. */
function defaultMailFrom(siteUrl: string | undefined): string {
  const host = siteUrl ? new URL(siteUrl).hostname : 'localhost';
  return `OrgNote <no-reply@${host}>`;
}

/** The domain of a mailbox ('Name <user@Example.org>' → 'example.org'). */
function domainOf(mailbox: string): string {
  const address = /<([^>]+)>/.exec(mailbox)?.[1] ?? mailbox;
  return address.slice(address.lastIndexOf('@') + 1).toLowerCase();
}
