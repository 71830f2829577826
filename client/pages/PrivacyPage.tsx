// '/privacy': what the waitlist keeps, why, for how long, who sees it and how to
// leave, with the contact from PRIVACY_CONTACT. A lazy chunk with its text (privacy-notice.ts), so
// the contact comes as a prop (client/routes.tsx says why).
import { PRIVACY_NOTICE as notice } from './privacy-notice';

/** The address inside 'Name <address>', or the setting as it is. */
function addressOf(mailbox: string): string {
  return /<([^>]+)>/.exec(mailbox)?.[1] ?? mailbox;
}

export function PrivacyPage({ privacyContact }: { privacyContact: string }) {
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
