// '/privacy': what the waitlist keeps, why, for how long, who sees it and how to leave, with the
// contact from PRIVACY_CONTACT and the names of the services webhooks send addresses to. A lazy
// chunk with its text (privacy-notice.ts), so the public config comes as props (client/routes.tsx
// says why).
import type { PublicConfig } from '../../shared/public-config';
import { PRIVACY_NOTICE as notice } from './privacy-notice';

/** The address inside 'Name <address>', or the setting as it is. */
function addressOf(mailbox: string): string {
  return /<([^>]+)>/.exec(mailbox)?.[1] ?? mailbox;
}

export function PrivacyPage({
  privacyContact,
  addressRecipients,
}: Pick<PublicConfig, 'privacyContact' | 'addressRecipients'>) {
  const contact = addressOf(privacyContact);
  return (
    <article className="privacy" aria-labelledby="privacy-title">
      <title>Privacy · OrgNote</title>
      <h1 id="privacy-title">Privacy</h1>
      {notice.sections.map(([heading, text]) => (
        <section key={heading}>
          <h2>{heading}</h2>
          <p>{text}</p>
        </section>
      ))}
      <section>
        <h2>{notice.whoSeesIt.heading}</h2>
        <p>{notice.whoSeesIt.text(addressRecipients)}</p>
      </section>
      <h2>{notice.leave.heading}</h2>
      <p>
        {/* A page load: /leave is the server's alone. */}
        <a href="/leave">{notice.leave.link}</a>
        {notice.leave.rest}
      </p>
      <h2>{notice.contact.heading}</h2>
      <p>
        {notice.contact.text}
        <a href={`mailto:${contact}`}>{contact}</a>.
      </p>
    </article>
  );
}
