// Header of docs/product.md §2: logo, title, BETA tag, the menu button with its dropdown, and the
// actions slot.
import { Link, useLocation } from 'react-router';
import { languageBase } from '../../shared/i18n/languages';
import { useMessages, usePageLanguage } from '../messages';
import { useSourceQuery } from '../landing-source';
import { usePublicConfig, useSiteLinks } from '../public-config';
import { ExternalLink } from './ExternalLink';
import { MenuDropdown } from './MenuDropdown';
import { GithubIcon, OrgNoteLogo } from './icons';

/**
 * The same page in the other language: a plain link (a page load, which works without JavaScript),
 * named in its own language. The site has two; with LANGUAGES=en there is none.
 */
function OtherLanguage() {
  const m = useMessages();
  const { language } = usePageLanguage();
  // The router's location is under the page's prefix already: '/privacy' on /ru/privacy. A plain
  // form's answer keeps React Router's '?index', which names no page. Where the visitor came from
  // goes along (client/landing-source.ts).
  const { pathname, search } = useLocation();
  const query = useSourceQuery(search === '?index' ? '' : search);
  const other = usePublicConfig().languages.find((each) => each !== language);
  return other ? (
    <a
      className="language-link"
      href={languageBase(other) + pathname + query}
      hrefLang={other}
      lang={other}
    >
      {m.otherLanguage_}
    </a>
  ) : null;
}

export function Header() {
  const links = useSiteLinks();
  const m = useMessages();
  const source = useSourceQuery();
  return (
    <header className="header">
      <a className="skip-link" href="#main">
        {m.skipToContent_}
      </a>
      <MenuDropdown />
      <Link to={`/${source}`} className="brand">
        <OrgNoteLogo className="brand-logo" />
        <span className="brand-title">OrgNote</span>
        <span className="beta-tag">{m.betaTag_}</span>
      </Link>
      <div className="header-actions">
        <OtherLanguage />
        <ExternalLink href={links.repository} className="icon-button" aria-label={m.sourceCode_}>
          <GithubIcon />
        </ExternalLink>
      </div>
    </header>
  );
}
