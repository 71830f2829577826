// Hero of docs/product.md §1/§2: tagline, prototype notice, the three buttons and the form area.
import type { ReactNode } from 'react';
import { useMessages } from '../messages';
import { useSiteLinks } from '../public-config';
import { ExternalLink } from './ExternalLink';

export function Hero({ children }: { children: ReactNode }) {
  const links = useSiteLinks();
  const m = useMessages();
  return (
    <section className="hero" aria-labelledby="hero-title">
      <div className="hero-text">
        <h1 id="hero-title" className="hero-title">
          {m.tagline_}
        </h1>
        <p className="hero-lead">{m.lead_}</p>
        <div className="hero-buttons">
          <ExternalLink href={links.googlePlay} className="store-badge">
            {/* Lazy, though on screen: the preload scanner leaves it out of the navigation's
                commit, and React hoists no preload for it into the head. Its text is outlines. */}
            <img
              src="/images/google-play-badge.svg"
              width="180"
              height="53"
              alt={m.googlePlay_}
              loading="lazy"
              decoding="async"
            />
          </ExternalLink>
          <ExternalLink href={links.releases} className="button button-secondary">
            {m.download_}
          </ExternalLink>
          <ExternalLink href={links.webApp} className="button button-secondary">
            {m.useOnline_}
          </ExternalLink>
        </div>
      </div>
      <div className="hero-form">{children}</div>
    </section>
  );
}
