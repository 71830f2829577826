// Public config (WEB_APP_URL, …) as React context: the server provides it while rendering, the
// browser reads the copy the server embedded in the page, so both render the same links.
import { createContext, useContext, useMemo } from 'react';
import { DEFAULT_PUBLIC_CONFIG, type PublicConfig } from '../shared/public-config';
import { siteLinks, type SiteLinks } from '../shared/links';

/** id of the <script type="application/json"> that carries the public config into the page. */
export const PUBLIC_CONFIG_ELEMENT_ID = 'public-config';

const PublicConfigContext = createContext<PublicConfig>(DEFAULT_PUBLIC_CONFIG);

export const PublicConfigProvider = PublicConfigContext.Provider;

export function usePublicConfig(): PublicConfig {
  return useContext(PublicConfigContext);
}

export function useSiteLinks(): SiteLinks {
  const config = usePublicConfig();
  return useMemo(() => siteLinks(config), [config]);
}

/** Browser only: the config the server embedded, or the defaults if it is missing or broken. */
export function readEmbeddedPublicConfig(doc: Document): PublicConfig {
  const text = doc.getElementById(PUBLIC_CONFIG_ELEMENT_ID)?.textContent;
  if (!text) return DEFAULT_PUBLIC_CONFIG;
  try {
    return { ...DEFAULT_PUBLIC_CONFIG, ...(JSON.parse(text) as Partial<PublicConfig>) };
  } catch {
    return DEFAULT_PUBLIC_CONFIG;
  }
}
