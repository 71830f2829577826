// The whole HTML document, rendered by React on the server (no split template). The browser
// hydrates only #root, so everything outside it is server-only and may differ per request.
import type { ReactNode } from 'react';
import { PUBLIC_CONFIG_ELEMENT_ID } from '../../client/public-config';
import type { PublicConfig } from '../../shared/public-config';
import type { PageAssets } from './static-files';

const SITE_DESCRIPTION = 'OrgNote: a free, open-source note-taking app for org-mode lovers, built on the Zettelkasten idea. Join the waitlist.';

const SOCIAL_TITLE = 'OrgNote: from an org-mode lover to org-mode lovers';
const SOCIAL_IMAGE = { path: '/images/og-card.png', width: 1200, height: 630, alt: 'OrgNote: notes in org-mode, linked like a Zettelkasten' };

/** JSON that is safe inside a <script> element: no way to close the tag or open a comment. */
function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
}

/**
 * Adds the entry scripts once the browser reports the first contentful paint of the server HTML;
 * where Paint Timing is missing, at the load event. (The load event alone can come before the
 * paint: the page's few images are small.)
 */
function scriptLoader(scripts: string[]): string {
  return (
    `(()=>{const go=()=>{for(const src of ${scriptSafeJson(scripts)}){` +
    `const s=document.createElement('script');s.type='module';s.src=src;document.head.append(s)}};` +
    `const P=self.PerformanceObserver;if(P&&(P.supportedEntryTypes||[]).includes('paint'))` +
    `new P((list,observer)=>{if(list.getEntriesByName('first-contentful-paint').length){observer.disconnect();go()}}).observe({type:'paint',buffered:true});` +
    `else addEventListener('load',go)})()`
  );
}

export interface DocumentProps {
  /** Absolute URL of this page without its query (canonical link, og:url). */
  canonicalUrl: string;
  /** Public origin of the site, for absolute image URLs in social cards. */
  origin: string;
  /** The stylesheet comes as text and goes inline (its hash is in the page policy). */
  assets: PageAssets;
  publicConfig: PublicConfig;
  /** CSP nonce for the scripts; none when the page's policy lists script hashes instead. */
  nonce?: string;
  children: ReactNode;
}

export function Document({ canonicalUrl, origin, assets, publicConfig, nonce, children }: DocumentProps) {
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        {/* <title> comes from the route (React hoists it here). */}
        <meta name="description" content={SITE_DESCRIPTION} />
        <meta name="theme-color" content="#14121f" />
        <link rel="canonical" href={canonicalUrl} />
        <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
        <meta property="og:type" content="website" />
        <meta property="og:site_name" content="OrgNote" />
        <meta property="og:title" content={SOCIAL_TITLE} />
        <meta property="og:description" content={SITE_DESCRIPTION} />
        <meta property="og:url" content={canonicalUrl} />
        <meta property="og:image" content={`${origin}${SOCIAL_IMAGE.path}`} />
        <meta property="og:image:width" content={String(SOCIAL_IMAGE.width)} />
        <meta property="og:image:height" content={String(SOCIAL_IMAGE.height)} />
        <meta property="og:image:alt" content={SOCIAL_IMAGE.alt} />
        <meta name="twitter:card" content="summary_large_image" />
        <meta name="twitter:title" content={SOCIAL_TITLE} />
        <meta name="twitter:description" content={SITE_DESCRIPTION} />
        <meta name="twitter:image" content={`${origin}${SOCIAL_IMAGE.path}`} />
        {assets.css && <style dangerouslySetInnerHTML={{ __html: assets.css }} />}
        {assets.preloads.map((href) => (
          <link key={href} rel="modulepreload" href={href} nonce={nonce} />
        ))}
        {/* The page is complete as HTML and the script only hydrates it, so the script is asked
            for once the page has painted: it never competes with the first (and largest) paint.
            The policy allows the loader by nonce or hash, and the file by 'self'. */}
        <script nonce={nonce} dangerouslySetInnerHTML={{ __html: scriptLoader(assets.scripts) }} />
      </head>
      <body>
        <div id="root">{children}</div>
        <script id={PUBLIC_CONFIG_ELEMENT_ID} type="application/json" dangerouslySetInnerHTML={{ __html: scriptSafeJson(publicConfig) }} />
      </body>
    </html>
  );
}
