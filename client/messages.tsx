// The page's language and its messages as React context: the server provides the whole catalog of
// the language it renders (shared/messages/index.ts), the browser the parts its entry holds and
// the lazy pages it loaded (client/hydrate.tsx).
import { createContext, useContext } from 'react';
import type { Language } from '../shared/i18n/languages';
import type { Catalog } from '../shared/messages/types';

export interface PageLanguage {
  language: Language;
  catalog: Catalog;
}

const MessagesContext = createContext<PageLanguage>(null!);

export const MessagesProvider = MessagesContext.Provider;

export function usePageLanguage(): PageLanguage {
  return useContext(MessagesContext);
}

/** The page's messages every page has. */
export function useMessages(): Catalog['site'] {
  return useContext(MessagesContext).catalog.site;
}
