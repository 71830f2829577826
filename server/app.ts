// createApp(config): the site's request listener, fully wired, without listening (server/index.ts
// listens; tests drive it with supertest). Three doors, tried in order: /api/* (plain node:http,
// server/api/handler.ts), the page cache (replaying what this stack sent before), then Express for
// pages, assets and the native form, whose middleware order is behaviour, kept here in one place.
import type { IncomingMessage, ServerResponse } from 'node:http';
import compression from 'compression';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { AssetManifest } from '../shared/manifest';
import { readApiBody } from './api/body';
import { ApiError } from './api/errors';
import { sendFormError } from './form-error-page';
import { createApiHandler } from './api/handler';
import { isApiUrl } from './api/routes';
import { nativeFormContext, readNativeFields } from './waitlist-form';
import { ASSETS_URL_PREFIX, hashedAssets, loadManifest, publicFiles } from './assets';
import { publicConfigOf, type Config } from './config';
import { healthCheck } from './health';
import { openServices, type Services } from './services';
import { createSignupDesk } from './signups';
import { signupRateLimit } from './rate-limit';
import type { TrustProxy } from './forwarded';
import { createLogger, requestLogger, type Logger } from './logger';
import { answerFromCache, createPageCache } from './page-cache';
import { createRenderer } from './render';
import { fixedHeaders, pageSecurityHeaders, setFixedHeaders } from './security';
import { seoFiles } from './seo';

export interface AppDeps {
  logger?: Logger;
  /** Database-backed services; opened from config.dataDir when not given. */
  services?: Services;
  /** Client build manifest; read from dist/client once, here, when not given. */
  assets?: AssetManifest;
}

export function createApp(config: Config, deps: AppDeps = {}) {
  const logger = deps.logger ?? createLogger(config);
  const assets = deps.assets ?? loadManifest();
  const services = deps.services ?? openServices(config);
  const app = express();

  // Proxy trust: req.ip, req.protocol and req.host honour X-Forwarded-* only from TRUST_PROXY.
  // The API and the page cache, which answer before Express, use the same compiled test.
  app.set('trust proxy', config.trustProxy);
  const trust = app.get('trust proxy fn') as TrustProxy;
  app.disable('x-powered-by');

  const deliverSignup = createSignupDesk(config, services, logger, trust);
  // One budget per client IP, shared by every way of submitting a form.
  const limitSubmissions = signupRateLimit(config, trust, logger);

  // What helmet sets, worked out once: every answer gets it; pages swap in a nonce (below).
  const securityHeaders = fixedHeaders(config);

  // API (embedded store or proxy): small JSON answers, relayed as they came, so no compression.
  const api = createApiHandler({ config, waitlist: services.waitlist, deliverSignup, limitSubmissions, trust, logger, securityHeaders });

  // Compression (gzip, brotli where accepted). React calls res.flush() after each chunk, so
  // streamed HTML still leaves in pieces.
  app.use(compression());

  // Security headers, before the first byte of any answer.
  app.use(setFixedHeaders(securityHeaders));

  // Structured request logs: method, path and status only.
  app.use(requestLogger(logger));

  // Health probe.
  app.get('/healthz', healthCheck(services.outbox));

  // Content-hashed build output: long-lived cache; a miss is a plain 404.
  app.use(ASSETS_URL_PREFIX, hashedAssets());

  // Files from public/ with a short cache; robots.txt and sitemap.xml name the site's origin.
  app.use(publicFiles());
  app.use(seoFiles(config));

  // Everything else is a page, rendered by React on the server.
  // The waitlist form also works without JavaScript: a native POST to /?index (spec §4 states,
  // docs/decisions/0006-no-javascript.md).
  const pageCache = createPageCache();
  const renderPage = createRenderer({
    assets,
    publicConfig: publicConfigOf(config),
    logger,
    siteUrl: config.siteUrl,
    actionContext: nativeFormContext(deliverSignup, logger),
    pageCache,
  });
  // Pages run React's inline scripts: each gets a CSP nonce of its own, made just before it renders.
  const pageHeaders = pageSecurityHeaders(config);
  app.post('/', limitSubmissions, readApiBody, readNativeFields, pageHeaders, renderPage);
  app.use(
    (req, res, next) => {
      if (req.method === 'GET' || req.method === 'HEAD') return next();
      res.setHeader('Allow', 'GET, HEAD');
      res.status(405).type('text/plain').send('Method not allowed');
    },
    pageHeaders,
    renderPage,
  );

  // Last resort: log the details, show the client nothing internal.
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (err instanceof ApiError) return sendFormError(req, res, err.status, err.message);
    const status = (err as { status?: number }).status;
    const clientError = typeof status === 'number' && status >= 400 && status < 500;
    if (!clientError) logger.error({ err }, 'unhandled error');
    if (res.headersSent) return res.destroy();
    res.status(clientError ? status : 500).type('text/plain').send(clientError ? 'Bad request' : 'Internal server error');
  });

  // Cache hits skip Express entirely: the same bytes and headers, a fraction of the work
  // (npm run bench measures both).
  const fromCache = answerFromCache({ cache: pageCache, trust, siteUrl: config.siteUrl, logger });
  return function site(req: IncomingMessage, res: ServerResponse): void {
    if (isApiUrl(req.url!)) api(req, res);
    else if (!fromCache(req, res)) app(req, res);
  };
}
