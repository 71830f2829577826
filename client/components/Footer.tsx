// Footer of docs/product.md §1: copyright 2023 and the headings 'Concacts' (sic) and 'Social'.
import { COPYRIGHT_YEAR } from '../../shared/constants';
import { useMessages } from '../messages';
import { useSiteLinks } from '../public-config';
import { ExternalLink } from './ExternalLink';

export function Footer() {
  const links = useSiteLinks();
  const m = useMessages();
  return (
    <footer className="footer">
      <div className="footer-columns">
        <section aria-labelledby="footer-contacts">
          <h2 id="footer-contacts" className="footer-heading">
            {m.contacts_}
          </h2>
          <ul className="footer-list">
            <li>
              <a href={links.email}>{links.emailAddress}</a>
            </li>
            <li>
              <ExternalLink href={links.issues}>{m.issues_}</ExternalLink>
            </li>
          </ul>
        </section>
        <section aria-labelledby="footer-social">
          <h2 id="footer-social" className="footer-heading">
            {m.social_}
          </h2>
          <ul className="footer-list">
            <li>
              <ExternalLink href={links.social}>Twitter</ExternalLink>
            </li>
            <li>
              <ExternalLink href={links.chat}>{m.discussions_}</ExternalLink>
            </li>
            <li>
              <ExternalLink href={links.donation}>Patreon</ExternalLink>
            </li>
          </ul>
        </section>
      </div>
      <p className="copyright">{m.copyright_(COPYRIGHT_YEAR)}</p>
    </footer>
  );
}
