// Shape of dist/client/manifest.json, written by the build and read once by the server.
import type { Language } from './i18n/languages';

/** What a page in one language loads to hydrate. */
export interface PageScripts {
  /** Entry script URLs (content-hashed), in load order. */
  scripts: string[];
  /** Chunks the entry imports statically, to modulepreload. */
  preloads: string[];
}

/** The English pages' scripts at the top level, and every language's under `languages`. */
export interface AssetManifest extends PageScripts {
  languages: Record<Language, PageScripts>;
  /** Stylesheet URLs (content-hashed), the same for every language. */
  styles: string[];
  /** Dedicated workers' script URLs (content-hashed classic scripts), by name. */
  workers: Record<string, string>;
}
