// The whole HTML document, rendered by React on the server (no split template). The browser
// hydrates only #root, so everything outside it is server-only and may differ per request.
import type { ReactNode } from 'react';
import type { AssetManifest } from '../shared/manifest';
import type { PublicConfig } from '../shared/public-config';
import { PUBLIC_CONFIG_ELEMENT_ID } from '../client/public-config';

export const SITE_DESCRIPTION =
  'OrgNote: a free, open-source note-taking app for org-mode lovers, built on the Zettelkasten idea. Join the waitlist.';

/** JSON that is safe inside a <script> element: no way to close the tag or open a comment. */
export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
}

export interface DocumentProps {
  assets: AssetManifest;
  publicConfig: PublicConfig;
  nonce: string;
  children: ReactNode;
}

export function Document({ assets, publicConfig, nonce, children }: DocumentProps) {
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>OrgNote · From an org-mode lover to org-mode lovers</title>
        <meta name="description" content={SITE_DESCRIPTION} />
        <meta name="theme-color" content="#14121f" />
        <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
        {assets.styles.map((href) => (
          <link key={href} rel="stylesheet" href={href} />
        ))}
        {assets.preloads.map((href) => (
          <link key={href} rel="modulepreload" href={href} nonce={nonce} />
        ))}
        {assets.scripts.map((src) => (
          <script key={src} type="module" src={src} nonce={nonce} />
        ))}
      </head>
      <body>
        <div id="root">{children}</div>
        <script
          id={PUBLIC_CONFIG_ELEMENT_ID}
          type="application/json"
          dangerouslySetInnerHTML={{ __html: scriptSafeJson(publicConfig) }}
        />
      </body>
    </html>
  );
}
