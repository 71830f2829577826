// Streams the React Router route tree as HTML, in React Router's data-router order:
// query(request) → redirect Response sent as is → createStaticRouter → <StaticRouterProvider nonce>
// → status from context.statusCode, with renderToPipeableStream writing straight into res.
import type { NextFunction, Request, Response } from 'express';
import { isbot } from 'isbot';
import { renderToPipeableStream } from 'react-dom/server';
import { createStaticHandler, createStaticRouter, StaticRouterProvider, type RouteObject } from 'react-router-dom';
import { routes as siteRoutes } from '../client/routes';
import { PublicConfigProvider } from '../client/public-config';
import type { AssetManifest } from '../shared/manifest';
import type { PublicConfig } from '../shared/public-config';
import { Document } from './document';
import type { Logger } from './logger';
import { siteOrigin } from './seo';
import { cspNonceOf } from './security';

/** A stalled render is cut off after this long, so a request never hangs. */
export const RENDER_ABORT_MS = 10_000;

const SHELL_ERROR_PAGE =
  '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Server error · OrgNote</title></head>' +
  '<body><h1>Something went wrong</h1><p>Please try again in a moment.</p></body></html>';

/** Express request → Fetch Request, which React Router's static handler expects. */
export function toFetchRequest(req: Request, res: Response): globalThis.Request {
  const url = new URL(req.originalUrl, `${req.protocol}://${req.get('host') ?? 'localhost'}`);
  const controller = new AbortController();
  res.on('close', () => controller.abort());
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return new Request(url, { method: req.method, headers, signal: controller.signal });
}

export interface RendererOptions {
  assets: AssetManifest;
  publicConfig: PublicConfig;
  logger: Logger;
  /** SITE_URL, when configured (see seo.ts). */
  siteUrl?: string;
  /** Per-request context for route actions (the native form POST). */
  actionContext?: (req: Request, res: Response) => unknown;
  /** The site's route table unless a test renders its own. */
  routes?: RouteObject[];
}

export function createRenderer({ assets, publicConfig, logger, siteUrl, actionContext, routes = siteRoutes }: RendererOptions) {
  const handler = createStaticHandler(routes);

  return async function renderPage(req: Request, res: Response, next: NextFunction): Promise<void> {
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
    const nonce = cspNonceOf(res);
    const origin = siteOrigin({ siteUrl }, req);
    const canonicalUrl = `${origin}${new URL(request.url).pathname}`;
    let renderFailed = false;

    const sendWhenReady = () => {
      res.status(renderFailed ? 500 : context.statusCode);
      res.setHeader('Content-Type', 'text/html; charset=utf-8');
      stream.pipe(res);
    };

    const stream = renderToPipeableStream(
      <Document canonicalUrl={canonicalUrl} origin={origin} assets={assets} publicConfig={publicConfig} nonce={nonce}>
        <PublicConfigProvider value={publicConfig}>
          <StaticRouterProvider router={router} context={context} nonce={nonce} />
        </PublicConfigProvider>
      </Document>,
      {
        nonce,
        // Crawlers get the complete document at once; people get the shell as soon as it is ready.
        ...(isbot(req.get('user-agent')) ? { onAllReady: sendWhenReady } : { onShellReady: sendWhenReady }),
        onShellError(err) {
          logger.error({ err }, 'render failed before the shell was ready');
          if (res.headersSent) return res.destroy();
          res.status(500).setHeader('Content-Type', 'text/html; charset=utf-8');
          res.end(SHELL_ERROR_PAGE);
        },
        onError(err) {
          renderFailed = true;
          logger.error({ err }, 'render error');
        },
      },
    );

    const abortTimer = setTimeout(() => stream.abort(new Error('render timed out')), RENDER_ABORT_MS);
    res.on('close', () => clearTimeout(abortTimer));
  };
}
