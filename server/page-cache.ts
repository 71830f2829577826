// Pages that are the same for everyone (a GET of a route, no query string, status 200) are
// rendered once and then answered before Express even runs: the stored bytes, brotli/gzip made
// once, and the exact headers the full middleware stack produced the first time. Their CSP uses
// hashes of the page's inline scripts instead of a nonce, so the bytes never change
// (docs/decisions/0007-html-cache.md). Bounded: without SITE_URL the key includes the Host,
// which is the client's to choose.
import { createHash } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import zlib from 'node:zlib';
import Negotiator from 'negotiator';
import { logRequest, type Logger } from './logger';
import { requestOrigin, type TrustProxy } from './forwarded';
import { INDEXED_PATHS } from './seo';

export interface CachedPage {
  headers: OutgoingHttpHeaders;
  identity: Buffer;
  br: Buffer;
  gzip: Buffer;
}

/** Per-response or length-dependent headers that are never replayed from the cache. */
const NOT_REPLAYED = new Set(['content-length', 'content-encoding', 'vary', 'date', 'connection', 'keep-alive', 'transfer-encoding']);

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

export type PageCache = ReturnType<typeof createPageCache>;

export function pageCacheKey(origin: string, path: string): string {
  return `${origin}${path}`;
}

/**
 * Only a plain GET/HEAD (no query string) of one of the site's own pages, exactly as linked, is
 * cached: '/ACTIVATE' or '/activate/' render fine but must not each take a cache slot. Checked
 * before anything else, so assets and the API never pay for a cache lookup.
 */
export function isShareable(method: string | undefined, url: string | undefined): boolean {
  return (method === 'GET' || method === 'HEAD') && (INDEXED_PATHS as readonly (string | undefined)[]).includes(url);
}

/** 'sha256-…' sources for every inline script the page executes (JSON data blocks excluded). */
export function inlineScriptHashes(html: string): string[] {
  const hashes: string[] = [];
  for (const match of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)) {
    const [, attributes, body] = match;
    if (/\bsrc=/.test(attributes) || /type="application\/json"/.test(attributes) || !body) continue;
    hashes.push(`'sha256-${createHash('sha256').update(body, 'utf8').digest('base64')}'`);
  }
  return hashes;
}

/** The same policy with the request's nonce swapped for the page's script hashes. */
export function hashedPolicy(policy: string, nonce: string, hashes: string[]): string {
  return policy.replace(`'nonce-${nonce}'`, hashes.join(' ') || "'none'");
}

/** Stores a page rendered by the full stack, with the headers it was sent with. */
export function toCachedPage(html: string, headers: OutgoingHttpHeaders): CachedPage {
  const identity = Buffer.from(html, 'utf8');
  const replayed: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (!NOT_REPLAYED.has(name) && value !== undefined) replayed[name] = value;
  return {
    headers: replayed,
    identity,
    // Quality 9, not 11: a few percent larger, but a cache fill (which a Host header can force
    // when SITE_URL is unset) costs a millisecond, not twenty.
    br: zlib.brotliCompressSync(identity, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 9 } }),
    gzip: zlib.gzipSync(identity, { level: 9 }),
  };
}

export interface CachedPagesOptions {
  cache: PageCache;
  trust: TrustProxy;
  siteUrl?: string;
  logger: Logger;
}

/**
 * The request listener's first step: answers a cache hit and returns true, or returns false and
 * leaves the request to Express. Logs like the request logger does.
 */
export function answerFromCache({ cache, trust, siteUrl, logger }: CachedPagesOptions) {
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    if (!isShareable(req.method, req.url)) return false;
    const page = cache.get(pageCacheKey(siteUrl ?? requestOrigin(req, trust), req.url!));
    if (!page) return false;
    const startedAt = Date.now();
    const encoding = new Negotiator(req).encoding(['br', 'gzip', 'identity']);
    const body = encoding === 'br' ? page.br : encoding === 'gzip' ? page.gzip : page.identity;
    res.writeHead(200, {
      ...page.headers,
      Vary: 'Accept-Encoding',
      ...(encoding === 'br' || encoding === 'gzip' ? { 'Content-Encoding': encoding } : {}),
      'Content-Length': body.length,
    });
    res.end(req.method === 'HEAD' ? undefined : body);
    logRequest(logger, req, res, startedAt, { cache: 'hit' });
    return true;
  };
}
