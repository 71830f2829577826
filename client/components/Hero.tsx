// Hero of docs/product.md §1/§2: tagline, prototype notice, the three buttons and the form area.
import type { ReactNode } from 'react';
import { useSiteLinks } from '../public-config';
import { ExternalLink } from './ExternalLink';

export function Hero({ children }: { children: ReactNode }) {
  const links = useSiteLinks();
  return (
    <section className="hero" aria-labelledby="hero-title">
      <div className="hero-text">
        <h1 id="hero-title" className="hero-title">
          From an org-mode lover to org-mode lovers
        </h1>
        <p className="hero-lead">
          OrgNote is a free, open-source note-taking app built on the Zettelkasten idea and
          org-mode. The current version is a prototype: expect bugs.
        </p>
        <div className="hero-buttons">
          <ExternalLink href={links.googlePlay} className="store-badge">
            {/* Lazy, though on screen: the preload scanner leaves it out of the navigation's
                commit, and React hoists no preload for it into the head. Its text is outlines. */}
            <img
              src="/images/google-play-badge.svg"
              width="180"
              height="53"
              alt="Get it on Google Play"
              loading="lazy"
              decoding="async"
            />
          </ExternalLink>
          <ExternalLink href={links.releases} className="button button-secondary">
            Download
          </ExternalLink>
          <ExternalLink href={links.webApp} className="button button-secondary">
            Use online
          </ExternalLink>
        </div>
      </div>
      <div className="hero-form">{children}</div>
    </section>
  );
}
