// Renders the React Router route tree as HTML, in React Router's data-router order:
// query(request) → redirect Response sent as is → createStaticRouter → <StaticRouterProvider nonce>
// → status from context.statusCode. A page per request (streamPage: a query string, a POST, a 404)
// streams straight into res with a nonce of its own; a page that is the same for everyone is
// rendered once to a string (renderShared) for the prerendered store.
import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import type { Request, Response } from 'express';
import { isbot } from 'isbot';
import type { ReactNode } from 'react';
import { renderToPipeableStream } from 'react-dom/server';
import {
  createStaticHandler,
  createStaticRouter,
  isRouteErrorResponse,
  StaticRouterProvider,
  type LoaderFunction,
  type RouteObject,
  type RouterContextProvider,
  type StaticHandler,
  type StaticHandlerContext,
} from 'react-router';
import { MessagesProvider } from '../../client/messages';
import { PublicConfigProvider } from '../../client/public-config';
import {
  DEFAULT_LANGUAGE,
  languageBase,
  languageOfPath,
  LOCALES,
  pathIn,
  type Language,
} from '../../shared/i18n/languages';
import { CATALOGS } from '../../shared/messages';
import { waitlistLoader } from '../../client/pages/WaitlistPage';
import { pageSourceLoader } from '../../client/pages/RootLayout';
import { routes as siteRoutes } from '../../client/routes';
import type { PublicConfig } from '../../shared/public-config';
import type { BodyRequest } from '../http/body';
import { CONTENT_TYPES, sendText } from '../http/errors';
import { CSP_HEADER, newNonce } from '../http/security-headers';
import type { Logger } from '../logger';
import { Document, type DocumentProps } from './document';
import { siteOrigin } from './seo';

/**
 * Loaders only the server runs, by route id: data only it has, which the page hands to the
 * browser in its hydration data (so the browser's route table needs no loader, and no code).
 */
const SERVER_LOADERS: Record<string, LoaderFunction> = { waitlist: waitlistLoader };

/**
 * And those of a page for one request only: what they read is that request's (its query, its
 * Referer), so a page rendered once for everyone has none, and stays byte for byte what it was.
 */
const ONE_REQUEST_LOADERS: Record<string, LoaderFunction> = {
  ...SERVER_LOADERS,
  root: pageSourceLoader,
};

function withServerLoaders(
  routes: RouteObject[],
  loaders: Record<string, LoaderFunction>,
): RouteObject[] {
  return routes.map((route): RouteObject => {
    const loader = route.id ? loaders[route.id] : undefined;
    if (route.index) return loader ? { ...route, loader } : route;
    const children = route.children && withServerLoaders(route.children, loaders);
    return { ...route, ...(loader ? { loader } : {}), children };
  });
}

/** A stalled render is cut off after this long, so a request never hangs. */
const RENDER_ABORT_MS = 10_000;

const SHELL_ERROR_PAGE =
  '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">' +
  '<title>Server error · OrgNote</title></head>' +
  '<body><h1>Something went wrong</h1><p>Please try again in a moment.</p></body></html>';

/**
 * A Fetch Request for React Router's static handler. Routing needs only the path and query, so
 * the URL is built on a fixed origin: a hostile Host header or a path like '//[' can never make
 * it throw. (Canonical links use siteOrigin, not this URL.)
 */
function toFetchRequest(
  url: string,
  method = 'GET',
  from?: { req: BodyRequest; res: Response },
): globalThis.Request {
  const href = new URL(`http://site.internal${url.startsWith('/') ? '' : '/'}${url}`);
  if (!from) return new Request(href, { method });
  const controller = new AbortController();
  from.res.on('close', () => controller.abort());
  const headers = new Headers();
  for (const [name, value] of Object.entries(from.req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  // The form readFields parsed (http/body.ts), so the action reads it with request.formData().
  // The body has been read already: its own type and length no longer describe this one.
  const form = from.req.body instanceof URLSearchParams ? from.req.body : undefined;
  if (!form) return new Request(href, { method, headers, signal: controller.signal });
  headers.delete('content-length');
  headers.set('content-type', 'application/x-www-form-urlencoded;charset=UTF-8');
  return new Request(href, { method, headers, body: form, signal: controller.signal });
}

/** The whole document as one string: waits for everything, like a bot. */
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

/**
 * A loader's or an action's own failure (not a status it threw on purpose, as a 404 or a 503 is):
 * shown to the visitor, and carried in the page's hydration data, as a bare 'Internal Server
 * Error', since its message may name internals; logged by name, code and where it was thrown, not
 * by message, which may quote what was typed (a database's error names the value it refused).
 */
function hideRouteFailures(context: StaticHandlerContext, logger: Logger): void {
  if (!context.errors) return;
  for (const [routeId, err] of Object.entries(context.errors)) {
    if (isRouteErrorResponse(err)) continue;
    // Duck-typed: a native module's errors (better-sqlite3's) may come from another realm's Error.
    const { name, code, stack } = (err ?? {}) as {
      name?: unknown;
      code?: unknown;
      stack?: unknown;
    };
    const at =
      typeof stack === 'string'
        ? stack
            .split('\n')
            .slice(1, 4)
            .map((line) => line.trim())
        : undefined;
    const failure = { name: typeof name === 'string' ? name : typeof err, code, at };
    logger.error({ routeId, failure }, 'route failed');
    context.errors[routeId] = new Error('Internal Server Error');
  }
}

/** A plain 500 page: the details go to the log, never to the visitor. */
function sendShellError(res: Response, logger: Logger, err: unknown): void {
  logger.error({ err }, 'render failed before the shell was ready');
  sendText(res, 500, CONTENT_TYPES.html, SHELL_ERROR_PAGE);
}

interface RendererOptions {
  assets: DocumentProps['assets'];
  /**
   * What every page embeds for the browser: fixed, or read for each page when it can change while
   * the site runs (it names the webhook endpoints, server/webhooks/recipients.ts).
   */
  publicConfig: PublicConfig | (() => Promise<PublicConfig>);
  logger: Logger;
  /** SITE_URL, when configured (see seo.ts). */
  siteUrl?: string;
  /** A streamed page's Content-Security-Policy, given its nonce source (security-headers.ts). */
  pagePolicy: (scriptSources: string[]) => string;
  /** What the routes' loaders and actions get for this request (client/route-context.ts). */
  requestContext?: (req: IncomingMessage) => RouterContextProvider;
  /** What the loaders get for a page rendered once for everyone (the prerendered store's). */
  sharedContext?: () => RouterContextProvider;
  /** The site's route table unless a test renders its own. */
  routes?: RouteObject[];
  /** The languages served (LANGUAGES): another's address is an unknown English path, a 404. */
  languages?: readonly Language[];
}

/** The language a page address is served in: its own when served, else English (then a 404). */
function servedLanguage(url: string, languages: readonly Language[]): Language {
  const language = languageOfPath(url);
  return languages.includes(language) ? language : DEFAULT_LANGUAGE;
}

export function createRenderer({
  assets,
  publicConfig,
  logger,
  siteUrl,
  pagePolicy,
  requestContext,
  sharedContext,
  routes = siteRoutes,
  languages = [DEFAULT_LANGUAGE],
}: RendererOptions) {
  // One handler a language: the same route table under the language's prefix (its basename),
  // with the loaders of a page for one request, or of a page for everyone.
  const handlersWith = (loaders: Record<string, LoaderFunction>) =>
    Object.fromEntries(
      languages.map((language) => [
        language,
        createStaticHandler(withServerLoaders(routes, loaders), {
          basename: languageBase(language) || '/',
        }),
      ]),
    ) as Record<Language, StaticHandler>;
  const handlers = handlersWith(ONE_REQUEST_LOADERS);
  const sharedHandlers = handlersWith(SERVER_LOADERS);
  const currentPublicConfig =
    typeof publicConfig === 'function' ? publicConfig : () => Promise.resolve(publicConfig);

  const documentFor = (
    language: Language,
    handler: StaticHandler,
    context: StaticHandlerContext,
    embedded: PublicConfig,
    path: string,
    origin: string,
    nonce: string | undefined,
  ) => (
    <Document
      language={language}
      canonicalUrl={`${origin}${path}`}
      alternates={languages.map((other) => ({
        language: other,
        href: `${origin}${pathIn(other, path)}`,
      }))}
      origin={origin}
      assets={assets}
      publicConfig={embedded}
      nonce={nonce}
    >
      <PublicConfigProvider value={embedded}>
        <MessagesProvider value={{ language, catalog: CATALOGS[language] }}>
          <StaticRouterProvider
            router={createStaticRouter(handler.dataRoutes, context)}
            context={context}
            nonce={nonce}
          />
        </MessagesProvider>
      </PublicConfigProvider>
    </Document>
  );

  return {
    /** The public config pages embed now. */
    publicConfig: currentPublicConfig,

    /**
     * A page that is the same for every visitor, without a nonce: its policy lists script hashes
     * instead. With the public config given, the page is the one for that config.
     */
    async renderShared(path: string, origin: string, config?: PublicConfig): Promise<string> {
      const language = servedLanguage(path, languages);
      const handler = sharedHandlers[language];
      const context = await handler.query(toFetchRequest(path), {
        requestContext: sharedContext?.(),
      });
      if (context instanceof Response || context.statusCode !== 200)
        throw new Error(`${path} is not a plain page`);
      const embedded = config ?? (await currentPublicConfig());
      return renderToHtml(
        documentFor(language, handler, context, embedded, path, origin, undefined),
      );
    },

    /** Express handler: renders this request's page into res as it comes, with a fresh nonce. */
    async streamPage(req: Request, res: Response): Promise<void> {
      const nonce = newNonce();
      res.setHeader(CSP_HEADER, pagePolicy([`'nonce-${nonce}'`]));
      // A nonce must never be served twice, and these pages can carry what the visitor typed.
      res.setHeader('Cache-Control', 'private, no-store');
      const language = servedLanguage(req.originalUrl, languages);
      res.setHeader('Content-Language', LOCALES[language].tag);
      const request = toFetchRequest(req.originalUrl, req.method, { req, res });
      const handler = handlers[language];
      const context = await handler.query(request, {
        requestContext: requestContext?.(req),
      });
      if (context instanceof Response) {
        // Redirects (and other raw responses) from loaders/actions go out as they are.
        res.status(context.status);
        context.headers.forEach((value, name) => res.setHeader(name, value));
        res.end();
        return;
      }
      hideRouteFailures(context, logger);

      const embedded = await currentPublicConfig();
      const origin = siteOrigin({ siteUrl }, req);
      let renderFailed = false;
      const sendWhenReady = () => {
        res.status(renderFailed ? 500 : context.statusCode);
        res.setHeader('Content-Type', CONTENT_TYPES.html);
        stream.pipe(res);
      };
      const stream = renderToPipeableStream(
        documentFor(
          language,
          handler,
          context,
          embedded,
          new URL(request.url).pathname,
          origin,
          nonce,
        ),
        {
          nonce,
          // Crawlers get the complete document at once; people get the shell as soon as it is
          // ready.
          ...(isbot(req.get('user-agent'))
            ? { onAllReady: sendWhenReady }
            : { onShellReady: sendWhenReady }),
          onShellError: (err) => sendShellError(res, logger, err),
          onError(err) {
            renderFailed = true;
            logger.error({ err }, 'render error');
          },
        },
      );

      const abortTimer = setTimeout(
        () => stream.abort(new Error('render timed out')),
        RENDER_ABORT_MS,
      );
      res.on('close', () => {
        clearTimeout(abortTimer);
        // The visitor left before the end: stop rendering for nobody.
        if (!res.writableFinished) stream.abort(new Error('client disconnected'));
      });
    },
  };
}
