// '/privacy' (issue 23, item 5): what the waitlist keeps, why, for how long, who sees it and how to
// leave, with the contact from PRIVACY_CONTACT. The words come from privacy-notice.ts, loaded with
// the route (client/routes.tsx), so visitors of the forms never download them.
import { Link } from 'react-router';
import { usePublicConfig } from '../public-config';
import type { PrivacyNotice } from './privacy-notice';

/** The address inside 'Name <address>', or the setting as it is. */
function addressOf(mailbox: string): string {
  return /<([^>]+)>/.exec(mailbox)?.[1] ?? mailbox;
}

export function PrivacyPage({ notice }: { notice: PrivacyNotice }) {
  const contact = addressOf(usePublicConfig().privacyContact);
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
      <h2>{notice.leave.heading}</h2>
      <p>
        <Link to="/leave">{notice.leave.link}</Link>
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
