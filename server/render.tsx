// Renders the React Router route tree as HTML, in React Router's data-router order:
// query(request) → redirect Response sent as is → createStaticRouter → <StaticRouterProvider nonce>
// → status from context.statusCode. Personal pages (a query string, a POST) stream straight into
// res with renderToPipeableStream; pages that are the same for everyone come from a cache.
import { PassThrough } from 'node:stream';
import type { NextFunction, Request, Response } from 'express';
import { isbot } from 'isbot';
import type { ReactNode } from 'react';
import { renderToPipeableStream } from 'react-dom/server';
import { createStaticHandler, createStaticRouter, StaticRouterProvider, type RouteObject } from 'react-router-dom';
import { routes as siteRoutes } from '../client/routes';
import { PublicConfigProvider } from '../client/public-config';
import type { AssetManifest } from '../shared/manifest';
import type { PublicConfig } from '../shared/public-config';
import { Document } from './document';
import type { Logger } from './logger';
import { hashedPolicy, inlineScriptHashes, isShareable, pageCacheKey, toCachedPage, type PageCache } from './page-cache';
import { siteOrigin } from './seo';
import { cspNonceOf } from './security';

/** A stalled render is cut off after this long, so a request never hangs. */
const RENDER_ABORT_MS = 10_000;

const HTML = 'text/html; charset=utf-8';

const SHELL_ERROR_PAGE =
  '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Server error · OrgNote</title></head>' +
  '<body><h1>Something went wrong</h1><p>Please try again in a moment.</p></body></html>';

/**
 * Express request → Fetch Request, which React Router's static handler expects. Routing needs only
 * the path and query, so the URL is built on a fixed origin: a hostile Host header or a path like
 * '//[' can never make it throw. (Canonical links use siteOrigin, not this URL.)
 */
function toFetchRequest(req: Request, res: Response): globalThis.Request {
  const url = new URL(`http://site.internal${req.originalUrl.startsWith('/') ? '' : '/'}${req.originalUrl}`);
  const controller = new AbortController();
  res.on('close', () => controller.abort());
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return new Request(url, { method: req.method, headers, signal: controller.signal });
}

/** Renders the whole document to a string (for the cache): waits for everything, like a bot. */
function renderToHtml(element: ReactNode): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const sink = new PassThrough();
    sink.on('data', (chunk: Buffer) => chunks.push(chunk));
    const timer = setTimeout(() => stream.abort(new Error('render timed out')), RENDER_ABORT_MS);
    sink.on('end', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
    const stream = renderToPipeableStream(element, {
      onAllReady: () => stream.pipe(sink),
      onShellError: (err) => {
        clearTimeout(timer);
        reject(err);
      },
      onError: reject,
    });
  });
}

/** A plain 500 page: the details go to the log, never to the visitor. */
function sendShellError(res: Response, logger: Logger, err: unknown): void {
  logger.error({ err }, 'render failed before the shell was ready');
  if (res.headersSent) return void res.destroy();
  res.status(500).setHeader('Content-Type', HTML);
  res.end(SHELL_ERROR_PAGE);
}

export interface RendererOptions {
  assets: AssetManifest;
  publicConfig: PublicConfig;
  logger: Logger;
  /** SITE_URL, when configured (see seo.ts). */
  siteUrl?: string;
  /** Per-request context for route actions (the native form POST). */
  actionContext?: (req: Request, res: Response) => unknown;
  /** Where pages that are the same for everyone are kept; none: every page renders per request. */
  pageCache?: PageCache;
  /** The site's route table unless a test renders its own. */
  routes?: RouteObject[];
}

export function createRenderer({ assets, publicConfig, logger, siteUrl, actionContext, pageCache, routes = siteRoutes }: RendererOptions) {
  const handler = createStaticHandler(routes);

  return async function renderPage(req: Request, res: Response, next: NextFunction): Promise<void> {
    const nonce = cspNonceOf(res);
    const origin = siteOrigin({ siteUrl }, req);
    const shared = pageCache !== undefined && isShareable(req.method, req.originalUrl);

    const request = toFetchRequest(req, res);
    let context;
    try {
      context = await handler.query(request, { requestContext: actionContext?.(req, res) as never });
    } catch (err) {
      return next(err);
    }
    if (context instanceof Response) {
      // Redirects (and other raw responses) from loaders/actions go out as they are.
      res.status(context.status);
      context.headers.forEach((value, name) => res.setHeader(name, value));
      res.end();
      return;
    }

    const router = createStaticRouter(handler.dataRoutes, context);
    const canonicalUrl = `${origin}${new URL(request.url).pathname}`;
    const documentFor = (documentNonce: string | undefined) => (
      <Document canonicalUrl={canonicalUrl} origin={origin} assets={assets} publicConfig={publicConfig} nonce={documentNonce}>
        <PublicConfigProvider value={publicConfig}>
          <StaticRouterProvider router={router} context={context} nonce={documentNonce} />
        </PublicConfigProvider>
      </Document>
    );

    if (shared && context.statusCode === 200) {
      // Rendered without a nonce; the policy allows exactly this page's inline scripts by hash.
      let html: string;
      try {
        html = await renderToHtml(documentFor(undefined));
      } catch (err) {
        return sendShellError(res, logger, err);
      }
      const policy = String(res.getHeader('Content-Security-Policy') ?? '');
      res.status(200).setHeader('Content-Type', HTML);
      res.setHeader('Content-Security-Policy', hashedPolicy(policy, nonce, inlineScriptHashes(html)));
      pageCache.set(pageCacheKey(origin, req.path), toCachedPage(html, res.getHeaders()));
      res.end(html);
      return;
    }

    let renderFailed = false;
    const sendWhenReady = () => {
      res.status(renderFailed ? 500 : context.statusCode);
      res.setHeader('Content-Type', HTML);
      stream.pipe(res);
    };

    const stream = renderToPipeableStream(documentFor(nonce), {
      nonce,
      // Crawlers get the complete document at once; people get the shell as soon as it is ready.
      ...(isbot(req.get('user-agent')) ? { onAllReady: sendWhenReady } : { onShellReady: sendWhenReady }),
      onShellError: (err) => sendShellError(res, logger, err),
      onError(err) {
        renderFailed = true;
        logger.error({ err }, 'render error');
      },
    });

    const abortTimer = setTimeout(() => stream.abort(new Error('render timed out')), RENDER_ABORT_MS);
    res.on('close', () => {
      clearTimeout(abortTimer);
      // The visitor left before the end: stop rendering for nobody.
      if (!res.writableFinished) stream.abort(new Error('client disconnected'));
    });
  };
}
