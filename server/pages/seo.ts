// What crawlers and link previews need: the site's public origin, robots.txt and sitemap.xml.
import type { IncomingMessage } from 'node:http';
import type { Response, Router } from 'express';
import express from 'express';
import type { Config } from '../config';
import { contextOf } from '../http/request-pipeline';
import { escapeMarkup } from '../../shared/markup';

/** The sitemaps.org schema every sitemap names. */
const SITEMAP_NAMESPACE = 'http://www.sitemaps.org/schemas/sitemap/0.9';

/** Pages worth indexing (docs/product.md §2, and the privacy notice). */
export const INDEXED_PATHS = ['/', '/activate', '/privacy'] as const;

/**
 * SITE_URL when set; otherwise the origin this request came to (honouring TRUST_PROXY), which the
 * client chooses: a response built from it is never publicly cacheable (docs/decisions/0019).
 */
export function siteOrigin(config: Pick<Config, 'siteUrl'>, req: IncomingMessage): string {
  return config.siteUrl ?? contextOf(req).client.origin;
}

export function seoFiles(config: Pick<Config, 'siteUrl'>): Router {
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
    const urls = INDEXED_PATHS.map(
      (path) => `  <url><loc>${escapeMarkup(origin + path)}</loc></url>`,
    ).join('\n');
    cache(res);
    res
      .type('application/xml')
      .send(
        '<?xml version="1.0" encoding="UTF-8"?>\n' +
          `<urlset xmlns="${SITEMAP_NAMESPACE}">\n${urls}\n</urlset>\n`,
      );
  });

  return router;
}
