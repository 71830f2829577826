// '/privacy': what the waitlist keeps, why, for how long, who sees it and how to leave, with the
// contact from PRIVACY_CONTACT and the names of the services webhooks send addresses to. A lazy
// chunk with its text ('#messages/privacy', privacy-notice.ts), so the public config and the
// page's language come as props (client/routes.tsx says why).
import type { Language } from '../../shared/i18n/languages';
import type { PrivacyMessages } from '../../shared/messages/types';
import type { PublicConfig } from '../../shared/public-config';
// The build's language's messages (package.json "imports"), in this chunk; the server hands the
// page its request's language's instead (client/routes.tsx).
import messages from '#messages/privacy';
import { whoSeesIt } from './privacy-notice';

export { messages };

/** The address inside 'Name <address>', or the setting as it is. */
function addressOf(mailbox: string): string {
  return /<([^>]+)>/.exec(mailbox)?.[1] ?? mailbox;
}

export interface PrivacyPageProps extends Pick<
  PublicConfig,
  'privacyContact' | 'addressRecipients' | 'backupRetentionDays'
> {
  m: PrivacyMessages;
  language: Language;
  /** The language's path prefix ('' or '/ru'): /leave is a page load, outside the router. */
  base: string;
}

export function PrivacyPage({
  privacyContact,
  addressRecipients,
  backupRetentionDays,
  m,
  language,
  base,
}: PrivacyPageProps) {
  const contact = addressOf(privacyContact);
  return (
    <article className="privacy" aria-labelledby="privacy-title">
      <title>{m.title_}</title>
      <h1 id="privacy-title">{m.heading_}</h1>
      {[m.stored_, m.why_].map(({ heading_, text_ }) => (
        <section key={heading_}>
          <h2>{heading_}</h2>
          <p>{text_}</p>
        </section>
      ))}
      <section>
        <h2>{m.howLong_.heading_}</h2>
        <p>{m.howLong_.text_}</p>
        <p>{m.afterLeaving_(backupRetentionDays)}</p>
      </section>
      <section>
        <h2>{m.whoSeesItHeading_}</h2>
        <p>{whoSeesIt(m, language, addressRecipients)}</p>
      </section>
      <h2>{m.leaveHeading_}</h2>
      <p>
        {/* A page load: /leave is the server's alone. */}
        {m.leave_.before_}
        <a href={`${base}/leave`}>{m.leave_.link_}</a>
        {m.leave_.after_}
      </p>
      <h2>{m.contactHeading_}</h2>
      <p>
        {m.contact_.before_}
        <a href={`mailto:${contact}`}>{contact}</a>
        {m.contact_.after_}
      </p>
    </article>
  );
}
