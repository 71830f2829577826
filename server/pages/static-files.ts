// Static files, answered from memory. Build output under /assets has content-hashed names, so it is
// cached for a year and marked immutable; a miss there is a plain 404 (never the HTML page, which a
// browser would try to run as a script). Files in public/ keep their names, so they get a short
// max-age. Each is kept with its brotli and gzip bodies and every header (http/kept-answers.ts).
import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import compressible from 'compressible';
import type { Request, Response } from 'express';
import mime from 'mime-types';
import type { AssetManifest } from '../../shared/manifest';
import { compress, type Encoding } from '../http/encodings';
import { CONTENT_TYPES, sendText } from '../http/errors';
import {
  bytesTag,
  keptBody,
  sendKept,
  urlPath,
  type KeptAnswer,
  type KeptBody,
} from '../http/kept-answers';
import type { RequestContext } from '../http/request-pipeline';
import type { HeaderList } from '../http/security-headers';
import {
  ASSETS_DIR,
  ASSETS_URL_PREFIX,
  CLIENT_BUILD_DIR,
  MANIFEST_PATH,
  PUBLIC_DIR,
} from '../paths';

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

/** Encodings the build writes beside each asset, and the file name each has there. */
const PRECOMPRESSED = [
  ['br', '.br'],
  ['gzip', '.gz'],
] as const;

/**
 * Below this, a compressed body saves less than its headers cost; it is what the compression
 * middleware skips too.
 */
const COMPRESS_MIN_BYTES = 1024;

/** A file's bodies, what they are, and whether the encoding asked for changes the answer. */
interface FileBodies {
  type: string;
  varies: boolean;
  bodies: [Encoding, { body: Buffer; etag: string; lastModified: string }][];
}

/**
 * What has been read, by file: every app of a process (a test run makes hundreds) shares the
 * bytes, their tags and compressed copies, which the build does not change while it runs.
 */
const read = new Map<string, FileBodies>();

/**
 * One file and its compressed copies: the build's .br/.gz beside it, or made now for a
 * compressible file of public/ (a few kB of SVG) that has none.
 */
function bodiesOf(file: string): FileBodies {
  const known = read.get(file);
  if (known) return known;
  const type = mime.contentType(path.extname(file)) || 'application/octet-stream';
  const identity = fs.readFileSync(file);
  const mtime = fs.statSync(file).mtime;
  const found: [Encoding, Buffer, Date][] = [['identity', identity, mtime]];
  for (const [encoding, extension] of PRECOMPRESSED) {
    if (fs.existsSync(file + extension))
      found.push([
        encoding,
        fs.readFileSync(file + extension),
        fs.statSync(file + extension).mtime,
      ]);
  }
  const compressibleType = compressible(type.split(';')[0]) ?? false;
  if (found.length === 1 && compressibleType && identity.length >= COMPRESS_MIN_BYTES) {
    const made = compress(identity);
    found.push(['br', made.br, mtime], ['gzip', made.gzip, mtime]);
  }
  const bodies: FileBodies = {
    type,
    // Whether another Accept-Encoding could get another body.
    varies: compressibleType || found.length > 1,
    bodies: found.map(([encoding, body, modified]) => [
      encoding,
      { body, etag: `"${bytesTag(body)}"`, lastModified: modified.toUTCString() },
    ]),
  };
  read.set(file, bodies);
  return bodies;
}

/** A file as a kept answer, with this app's security headers and the folder's cache policy. */
function keptFile(file: string, cacheControl: string, security: HeaderList): KeptAnswer {
  const { type, varies, bodies } = bodiesOf(file);
  const variants: Partial<Record<Encoding, KeptBody>> = {};
  for (const [encoding, { body, etag, lastModified }] of bodies) {
    const headers = {
      ...(varies ? { Vary: 'Accept-Encoding' } : {}),
      ...(encoding === 'identity' ? {} : { 'Content-Encoding': encoding }),
      'Content-Type': type,
      'Cache-Control': cacheControl,
      'Accept-Ranges': 'bytes',
    };
    variants[encoding] = keptBody(security, headers, body, etag, lastModified);
  }
  return { variants: variants as KeptAnswer['variants'], ranges: true };
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

/** The files a folder serves under `prefix`: the build's compressed copies are not files of it. */
function keptFolder(
  dir: string,
  prefix: string,
  cacheControl: string,
  security: HeaderList,
): [string, KeptAnswer][] {
  const names = listFiles(dir);
  const copies = new Set(names.flatMap((name) => PRECOMPRESSED.map(([, ext]) => name + ext)));
  return names
    .filter((name) => !copies.has(name))
    .map((name) => [prefix + name, keptFile(path.join(dir, name), cacheControl, security)]);
}

/**
 * The static files, read into memory once at start (the build does not change while it runs):
 * the content-hashed build output under /assets, immutable for a year, and the files of public/
 * under their own names with a short max-age. `answer` is the request pipeline's fast path for a
 * GET or HEAD of one of them; anything else under /assets is `missingAsset`'s plain 404.
 */
export function staticFiles(security: HeaderList) {
  const files = new Map<string, KeptAnswer>([
    ...keptFolder(PUBLIC_DIR, '', `public, max-age=${PUBLIC_MAX_AGE_S}`, security),
    ...keptFolder(
      ASSETS_DIR,
      ASSETS_URL_PREFIX,
      `public, max-age=${ONE_YEAR_S}, immutable`,
      security,
    ),
  ]);
  return {
    /** The request pipeline's fast path (a GET or HEAD): a kept file, whatever the query. */
    answer(req: IncomingMessage, res: ServerResponse, { id }: RequestContext): boolean {
      const file = files.get(urlPath(req.url!));
      if (!file) return false;
      sendKept(req, res, id, file);
      return true;
    },
    /** Express's handler for whatever else is asked for under /assets: never the HTML page. */
    missingAsset(_req: Request, res: Response) {
      sendText(res, 404, CONTENT_TYPES.text, 'Not found');
    },
  };
}
