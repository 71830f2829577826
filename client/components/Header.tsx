// Header of docs/product.md §2: logo, title, BETA tag, the menu button with its dropdown, and the
// actions slot.
import { Link } from 'react-router';
import { useSiteLinks } from '../public-config';
import { ExternalLink } from './ExternalLink';
import { MenuDropdown } from './MenuDropdown';
import { GithubIcon, OrgNoteLogo } from './icons';

export function Header() {
  const links = useSiteLinks();
  return (
    <header className="header">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <MenuDropdown />
      <Link to="/" className="brand">
        <OrgNoteLogo className="brand-logo" />
        <span className="brand-title">OrgNote</span>
        <span className="beta-tag">BETA</span>
      </Link>
      <div className="header-actions">
        <ExternalLink
          href={links.repository}
          className="icon-button"
          aria-label="Source code on GitHub"
        >
          <GithubIcon />
        </ExternalLink>
      </div>
    </header>
  );
}
