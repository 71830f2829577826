// Static files. Build output under /assets has content-hashed names, so it is cached for a year
// and marked immutable; a miss there is a plain 404 (never the HTML page, which a browser would
// try to run as a script). Files in public/ keep their names, so they get a short max-age.
import fs from 'node:fs';
import path from 'node:path';
import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import type { AssetManifest } from '../../shared/manifest';
import { CONTENT_TYPES, sendText } from '../http/errors';
import { ASSETS_DIR, CLIENT_BUILD_DIR, MANIFEST_PATH, PUBLIC_DIR } from '../paths';

const ONE_YEAR_S = 31_536_000;
const PUBLIC_MAX_AGE_S = 3600;

class MissingBuildError extends Error {}

/** What a page links to, plus the stylesheet's text, which every page carries inline. */
export interface PageAssets extends AssetManifest {
  css: string;
}

/**
 * The build's manifest and its stylesheets, read once at start. The CSS is small (about 2.6 KB
 * gzip), so inlining it saves the first render a round trip (docs/decisions/0007-html-cache.md).
 */
export function loadPageAssets(file = MANIFEST_PATH): PageAssets {
  let manifest: AssetManifest;
  try {
    manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as AssetManifest;
  } catch {
    throw new MissingBuildError(
      `No client build at ${file}. Run "npm run build" (npm start does it for you).`,
    );
  }
  const css = manifest.styles
    .map((href) => fs.readFileSync(path.join(CLIENT_BUILD_DIR, href), 'utf8'))
    .join('\n');
  return { ...manifest, css };
}

function plainNotFound(_req: Request, res: Response) {
  sendText(res, 404, CONTENT_TYPES.text, 'Not found');
}

/** Encodings the build writes beside each asset, in order of preference. */
const PRECOMPRESSED = [
  { encoding: 'br', extension: '.br' },
  { encoding: 'gzip', extension: '.gz' },
] as const;

/**
 * Serves the build's .br/.gz copies (compressed once, at the highest level) to browsers that
 * accept them. The compression middleware leaves a response alone once Content-Encoding is set.
 */
function precompressedVariants(dir: string): RequestHandler {
  const files = new Set(fs.existsSync(dir) ? fs.readdirSync(dir) : []);
  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const name = req.path.slice(1);
    if (!files.has(name)) return next();
    const offered = PRECOMPRESSED.filter((variant) => files.has(name + variant.extension));
    if (offered.length === 0) return next();
    res.vary('Accept-Encoding');
    const chosen = req.acceptsEncodings(...offered.map((variant) => variant.encoding));
    const variant = offered.find((v) => v.encoding === chosen);
    if (!variant) return next();
    res.setHeader('Content-Encoding', variant.encoding);
    res.type(path.extname(name));
    req.url = `/${name}${variant.extension}`;
    next();
  };
}

export function hashedAssets(dir = ASSETS_DIR): Router {
  const router = express.Router();
  router.use(precompressedVariants(dir));
  router.use(
    express.static(dir, {
      index: false,
      redirect: false,
      setHeaders: (res) =>
        res.setHeader('Cache-Control', `public, max-age=${ONE_YEAR_S}, immutable`),
    }),
  );
  router.use(plainNotFound);
  return router;
}

/** Every file under dir, as URL paths ('/images/note-graph.svg'). */
function listFiles(dir: string, prefix = ''): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) =>
      entry.isDirectory()
        ? listFiles(path.join(dir, entry.name), `${prefix}/${entry.name}`)
        : [`${prefix}/${entry.name}`],
    );
}

/**
 * public/ is read once at start: only its known files reach the static server, so a page
 * request costs no file-system lookup (public/ ships with the build and does not change).
 */
export function publicFiles(dir = PUBLIC_DIR): RequestHandler {
  const known = new Set(listFiles(dir));
  const serve = express.static(dir, {
    index: false,
    redirect: false,
    setHeaders: (res) => res.setHeader('Cache-Control', `public, max-age=${PUBLIC_MAX_AGE_S}`),
  });
  return (req, res, next) => {
    if (known.has(req.path)) serve(req, res, next);
    else next();
  };
}
