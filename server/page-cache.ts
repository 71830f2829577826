// Rendered HTML of pages that are the same for everyone: a GET of a known route, no query string,
// status 200. Rendered once with a placeholder where the CSP nonce goes, then every response gets
// a fresh nonce put in (docs/decisions/0007-html-cache.md). Bounded, because the key includes the
// request's origin when SITE_URL is unset, and Host headers are the client's to choose.
import { randomBytes } from 'node:crypto';

/** Base64-alphabet letters only, so React writes it into attributes unchanged. */
export const NONCE_PLACEHOLDER = `nonce${randomBytes(12).toString('hex')}`;

export interface CachedPage {
  html: string;
  status: number;
}

export function createPageCache(maxEntries = 32) {
  const pages = new Map<string, CachedPage>();
  return {
    get(key: string): CachedPage | undefined {
      const page = pages.get(key);
      if (page) {
        // least recently used goes first
        pages.delete(key);
        pages.set(key, page);
      }
      return page;
    },
    set(key: string, page: CachedPage): void {
      pages.delete(key);
      pages.set(key, page);
      while (pages.size > maxEntries) pages.delete(pages.keys().next().value!);
    },
    get size() {
      return pages.size;
    },
  };
}

export function withNonce(page: CachedPage, nonce: string): string {
  return page.html.replaceAll(NONCE_PLACEHOLDER, nonce);
}
