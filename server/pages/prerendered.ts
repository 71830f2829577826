// Prerendered pages: the pages that are the same for every visitor (a GET or HEAD of an indexed
// path, exactly as linked, no query string) are rendered once per origin and kept with every header
// worked out in advance: the fixed security headers (set by the request pipeline), a policy that
// allows exactly the page's inline scripts by hash (so no nonce is made, and the bytes never
// change), brotli/gzip made once, a strong ETag per encoding and a Cache-Control that lets a CDN or
// the reverse proxy keep them for PAGE_CACHE_SECONDS (docs/decisions/0007-html-cache.md). Without
// SITE_URL the origin comes from the Host header, which is the client's to choose, so the store is
// bounded and no shared cache may keep the page (docs/decisions/0019-forged-host.md). Every page
// embeds the public config, which names the hosts webhooks send addresses to: when it changes,
// every page kept is dropped and rendered again. A page is rendered again too when older than
// maxAgeMs, before the plain form's signed issue time it carries expires.
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { compress, type Encoding } from '../http/encodings';
import { CONTENT_TYPES, INTERNAL_ERROR, sendText } from '../http/errors';
import { bytesTag, keptBody, sendKept, type KeptAnswer } from '../http/kept-answers';
import type { RequestContext } from '../http/request-pipeline';
import { CSP_HEADER, type HeaderList } from '../http/security-headers';
import type { PublicConfig } from '../../shared/public-config';
import type { Logger } from '../logger';
import {
  DEFAULT_LANGUAGE,
  languageOfPath,
  LOCALES,
  type Language,
} from '../../shared/i18n/languages';
import { indexedPaths } from './seo';

/** A page kept: its rendering, when that began, and the page once it is done. */
interface Kept {
  rendering: Promise<KeptAnswer>;
  renderedAt: number;
  page?: KeptAnswer;
}

/** The store's one key: where the page is addressed (canonical links name it) and its path. */
function pageKey(origin: string, path: string): string {
  return `${origin}${path}`;
}

/**
 * Only a plain GET/HEAD of one of the site's own pages in a language served, exactly as linked:
 * '/ACTIVATE' or '/activate/' render per request.
 */
export function prerenderedPaths(
  languages: readonly Language[],
): (req: IncomingMessage) => boolean {
  const paths: readonly (string | undefined)[] = indexedPaths(languages);
  return (req) => (req.method === 'GET' || req.method === 'HEAD') && paths.includes(req.url);
}

/** 'sha256-…' sources for every inline script the page executes (JSON data blocks excluded). */
function inlineScriptHashes(html: string): string[] {
  const hashes: string[] = [];
  for (const [, attributes, body] of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)) {
    if (/\bsrc=/.test(attributes) || /type="application\/json"/.test(attributes) || !body) continue;
    hashes.push(sha256Source(body));
  }
  return hashes;
}

/** A CSP hash source for inline text. */
export function sha256Source(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

interface PrerenderedOptions {
  /** Renders a page the same for everyone with this public config (render.tsx renderShared). */
  render(path: string, origin: string, publicConfig?: PublicConfig): Promise<string>;
  /** The public config pages embed now (render.tsx); left out, it never changes. */
  publicConfig?: () => Promise<PublicConfig>;
  /**
   * How long the public config, once read, is taken to be what pages embed (the names /privacy
   * lists are read again after that long: webhooks/recipients.ts). For that long a kept page is
   * answered at once, without asking for it again.
   */
  publicConfigMaxAgeMs?: number;
  /** Every answer's security headers; a page's policy takes the place of theirs. */
  securityHeaders: HeaderList;
  /** The page policy with these script sources (security-headers.ts). */
  pagePolicy(scriptSources: string[]): string;
  /** How long a shared cache may keep a page (PAGE_CACHE_SECONDS). */
  cacheSeconds: number;
  /** SITE_URL, when set: then there is one origin, rendered once, and shared caches may keep it. */
  siteUrl?: string;
  logger: Logger;
  /** The languages served (LANGUAGES): their pages are kept. English alone unless said. */
  languages?: readonly Language[];
  maxEntries?: number;
  /**
   * A page older than this is rendered again: what it carries expires (the plain form's issue
   * time, server/guard/issued-field.ts). Left out, a page lives as long as its public config.
   */
  maxAgeMs?: number;
  now?: () => number;
}

export function prerenderedPages({
  render,
  publicConfig,
  publicConfigMaxAgeMs = 0,
  securityHeaders,
  pagePolicy,
  cacheSeconds,
  siteUrl,
  logger,
  languages = [DEFAULT_LANGUAGE],
  maxEntries = 32,
  maxAgeMs = Infinity,
  now = Date.now,
}: PrerenderedOptions) {
  const isPrerendered = prerenderedPaths(languages);
  // By key, least recently used first.
  const pages = new Map<string, Kept>();
  // The public config the kept pages embed, as JSON, and when it was last read.
  let pagesEmbed: string | undefined;
  let embedReadAt = -Infinity;
  // Browsers check back every time (a 304 when nothing changed). Shared caches keep the page only
  // when SITE_URL names it: otherwise it names whatever Host the request that filled it sent.
  const cacheControl = siteUrl
    ? `public, max-age=0, s-maxage=${cacheSeconds}`
    : 'private, no-cache';

  async function prerender(
    path: string,
    origin: string,
    config: PublicConfig | undefined,
  ): Promise<KeptAnswer> {
    const html = await render(path, origin, config);
    const bodies = compress(Buffer.from(html, 'utf8'));
    const tag = bytesTag(bodies.identity);
    const common = {
      'Content-Type': CONTENT_TYPES.html,
      'Content-Language': LOCALES[languageOfPath(path)].tag,
      [CSP_HEADER]: pagePolicy(inlineScriptHashes(html)),
      'Cache-Control': cacheControl,
      Vary: 'Accept-Encoding',
    };
    const variant = (encoding: Encoding) =>
      keptBody(
        securityHeaders,
        encoding === 'identity' ? common : { ...common, 'Content-Encoding': encoding },
        bodies[encoding],
        `"${tag}${encoding === 'identity' ? '' : `-${encoding}`}"`,
      );
    return {
      variants: { br: variant('br'), gzip: variant('gzip'), identity: variant('identity') },
      ranges: false,
    };
  }

  /**
   * The page for this key and the public config of now, rendered on first use; least recently used
   * goes first.
   */
  async function pageFor(path: string, origin: string): Promise<KeptAnswer> {
    const config = await publicConfig?.();
    const embeds = JSON.stringify(config);
    if (embeds !== pagesEmbed) {
      pages.clear();
      pagesEmbed = embeds;
    }
    embedReadAt = now();
    const key = pageKey(origin, path);
    let kept = pages.get(key);
    if (kept) pages.delete(key);
    if (!kept || now() - kept.renderedAt >= maxAgeMs) {
      const fresh: Kept = { rendering: prerender(path, origin, config), renderedAt: now() };
      fresh.rendering.then(
        (page) => (fresh.page = page),
        // A failed render is not kept (unless another took its place): the next request tries
        // again.
        () => pages.get(key) === fresh && pages.delete(key),
      );
      kept = fresh;
    }
    pages.set(key, kept);
    while (pages.size > maxEntries) pages.delete(pages.keys().next().value!);
    return kept.rendering;
  }

  return {
    /** Whether a request is for a kept page: Express hands those to `serve`. */
    covers: isPrerendered,
    /**
     * The request pipeline's fast path: a page rendered already, still fresh, while the public
     * config it embeds was read less than publicConfigMaxAgeMs ago, answered at once. False for
     * any other request, which Express hands to `serve`.
     */
    answer(req: IncomingMessage, res: ServerResponse, context: RequestContext): boolean {
      if (!isPrerendered(req)) return false;
      const at = now();
      if (at - embedReadAt >= publicConfigMaxAgeMs) return false;
      const kept = pages.get(pageKey(siteUrl ?? context.client.origin, req.url!));
      if (!kept?.page || at - kept.renderedAt >= maxAgeMs) return false;
      context.kind = 'page';
      sendKept(req, res, context.id, kept.page);
      return true;
    },
    /** Express's handler for isPrerendered requests: reads the public config, renders if due. */
    serve(req: IncomingMessage, res: ServerResponse, { id, client }: RequestContext): void {
      pageFor(req.url!, siteUrl ?? client.origin).then(
        (page) => sendKept(req, res, id, page),
        (err: unknown) => {
          logger.error({ err }, 'prerendering a page failed');
          sendText(res, 500, CONTENT_TYPES.text, INTERNAL_ERROR, { 'Cache-Control': 'no-store' });
        },
      );
    },
  };
}
