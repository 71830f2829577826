// What crawlers and link previews need: the site's public origin, robots.txt and sitemap.xml.
import type { IncomingMessage } from 'node:http';
import type { Response, Router } from 'express';
import express from 'express';
import type { Config } from '../config';
import { contextOf } from '../http/request-pipeline';
import { escapeMarkup } from '../../shared/markup';
import { LOCALES, pathIn, type Language } from '../../shared/i18n/languages';

/** The sitemaps.org schema every sitemap names, and the one of its links to other languages. */
const SITEMAP_NAMESPACE = 'http://www.sitemaps.org/schemas/sitemap/0.9';
const XHTML_NAMESPACE = 'http://www.w3.org/1999/xhtml';

/** Pages worth indexing (docs/product.md §2, and the privacy notice), as English addresses. */
export const INDEXED_PATHS = ['/', '/activate', '/privacy'] as const;

/** The indexed pages in every language served: '/', …, then '/ru/', '/ru/activate', …. */
export function indexedPaths(languages: readonly Language[]): string[] {
  return languages.flatMap((language) => INDEXED_PATHS.map((path) => pathIn(language, path)));
}

/**
 * SITE_URL when set; otherwise the origin this request came to (honouring TRUST_PROXY), which the
 * client chooses: a response built from it is never publicly cacheable (docs/decisions/0019).
 */
export function siteOrigin(config: Pick<Config, 'siteUrl'>, req: IncomingMessage): string {
  return config.siteUrl ?? contextOf(req).client.origin;
}

export function seoFiles(config: Pick<Config, 'siteUrl' | 'languages'>): Router {
  const router = express.Router();
  // Without SITE_URL both files name the request's Host: a shared cache must not keep one
  // request's.
  const cacheControl = config.siteUrl ? 'public, max-age=3600' : 'private, max-age=3600';
  const cache = (res: Response) => res.setHeader('Cache-Control', cacheControl);

  router.get('/robots.txt', (req, res) => {
    cache(res);
    const sitemap = `${siteOrigin(config, req)}/sitemap.xml`;
    res
      .type('text/plain')
      .send(`User-agent: *\nAllow: /\nDisallow: /api/\n\nSitemap: ${sitemap}\n`);
  });

  router.get('/sitemap.xml', (req, res) => {
    const origin = siteOrigin(config, req);
    // Each page in each language, with every language's address of it (Google's "Tell Google
    // about localized versions of your page", the sitemap method), x-default the English one.
    const alternates = (path: string) =>
      [
        ...config.languages.map((language) => [LOCALES[language].tag, pathIn(language, path)]),
        ['x-default', path],
      ]
        .map(
          ([tag, href]) =>
            `    <xhtml:link rel="alternate" hreflang="${tag}" ` +
            `href="${escapeMarkup(origin + href)}"/>`,
        )
        .join('\n');
    const urls = config.languages
      .flatMap((language) =>
        INDEXED_PATHS.map(
          (path) =>
            `  <url>\n    <loc>${escapeMarkup(origin + pathIn(language, path))}</loc>\n` +
            `${alternates(path)}\n  </url>`,
        ),
      )
      .join('\n');
    cache(res);
    res
      .type('application/xml')
      .send(
        '<?xml version="1.0" encoding="UTF-8"?>\n' +
          `<urlset xmlns="${SITEMAP_NAMESPACE}" xmlns:xhtml="${XHTML_NAMESPACE}">\n` +
          `${urls}\n</urlset>\n`,
      );
  });

  return router;
}
