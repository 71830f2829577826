// createApp(config): the site's one request handler, fully wired, without listening
// (server/index.ts listens; tests drive the same handler with supertest). Every request crosses
// the request pipeline's preamble (http/request-pipeline.ts); then `siteRoutes` below answers it:
// every path the site answers, in the order Express tries them, where that order is behaviour.
import compression from 'compression';
import express, { type NextFunction, type Request, type Response } from 'express';
import { RouterContextProvider } from 'react-router';
import {
  addressPagesContext,
  issuedFieldContext,
  pageSourceContext,
  waitlistFormContext,
} from '../client/route-context';
import { CONFIRM_PATH, LEAVE_PATH } from '../shared/address-links';
import { DATA_PATH, PRIVACY_PATH } from '../shared/data-requests';
import { ACTIVATION } from '../shared/links';
import { ISSUED_FIELD } from '../shared/native-form';
import { apiHandler } from './api/router';
import { bounceRoutes, isBounceUrl } from './bounces';
import type { FetchText } from './bounces/ses';
import { isApiUrl } from './api/routes';
import { publicConfigOf, type Config } from './config';
import { healthProbe, readinessCheck, watchOutbox, type OutboxWatch } from './health';
import { readBody, readFields, type BodyRequest, type Middleware } from './http/body';
import { compileTrust, type TrustProxy } from './http/client';
import { refuseCrossSite } from './http/cross-site';
import { CONTENT_TYPES, HttpError, sendText, statusAndMessage } from './http/errors';
import { answeredAs, contextOf, requestPipeline } from './http/request-pipeline';
import { signupRateLimit } from './http/rate-limit';
import { securityHeaders } from './http/security-headers';
import { CONSOLE_MOUNT } from './console/paths';
import { consoleRouter } from './console/router';
import { CONSOLE_CSS } from './console/styles';
import { createLogger, type Logger } from './logger';
import { NO_METRICS, type Metrics } from './metrics';
import { openActivation } from './pages/activation-open';
import { sendFormError } from './pages/error-page';
import { prerenderedPages, sha256Source } from './pages/prerendered';
import { createRenderer } from './pages/render';
import { pageSource } from './pages/page-source';
import { seoFiles, siteOrigin } from './pages/seo';
import { loadPageAssets, staticFiles, type PageAssets } from './pages/static-files';
import { ASSETS_URL_PREFIX } from './paths';
import { addressPages, isLeaveByLink } from './pages/address-pages';
import { signupGuard } from './guard';
import { nativeForm } from './pages/native-form';
import { openSqliteStore, type Store } from './store';
import { signup, type SubmitSignup } from './waitlist/signup';
import { addressRecipients, RECIPIENTS_MAX_AGE_MS } from './webhooks/recipients';
import { DEFAULT_LANGUAGE, languageBase, pathIn } from '../shared/i18n/languages';

export interface AppDeps {
  logger?: Logger;
  /** The store; opened from config.dataDir when not given. */
  store?: Store;
  /**
   * The client build (manifest and inline CSS); read from dist/client once, here, when not given.
   */
  assets?: PageAssets;
  /** What METRICS_PORT serves; nothing is recorded when not given. */
  metrics?: Metrics;
  /**
   * Told when a request queued mail (a confirmation, a leave link): the running site's mail worker
   * sends it now.
   */
  wakeMail?: () => void;
  /** Told when a request queued a webhook event or a signup is due one: the worker sends it now. */
  wakeWebhooks?: () => void;
  /**
   * How old the names /privacy lists may get before a page reads the webhook endpoints again
   * (webhooks/recipients.ts); 0 in tests, so a page follows an endpoint added just before.
   */
  recipientsMaxAgeMs?: number;
  /** The bot guard's clock (the plain form's issue times), so a test need not wait on it. */
  now?: () => number;
  /**
   * The outbox depth /healthz reports, which the running site keeps fresh (server/index.ts);
   * without it, each probe asks for a read when the last is a second old.
   */
  outboxWatch?: OutboxWatch;
  /**
   * How /bounces/ses fetches SNS's signing certificates and confirms subscriptions; over https
   * unless given (tests serve their own certificate).
   */
  bounceFetch?: FetchText;
}

export function createApp(config: Config, deps: AppDeps = {}) {
  const logger = deps.logger ?? createLogger(config);
  const assets = deps.assets ?? loadPageAssets();
  if (!deps.store && config.databaseUrl)
    throw new Error('createApp: with DATABASE_URL, open the store first (openStore) and pass it');
  const store = deps.store ?? openSqliteStore(config);
  const metrics = deps.metrics ?? NO_METRICS;
  const trust = compileTrust(config.trustProxy);
  const headers = securityHeaders(config, assets.css ? [sha256Source(assets.css)] : []);

  // Shared by every handler that takes a signup or another form.
  const { wakeMail, wakeWebhooks } = deps;
  const guard = signupGuard({ config, store, metrics, now: deps.now });
  const submitSignup: SubmitSignup = (input) =>
    signup({ config, store, logger, metrics, wakeMail, wakeWebhooks, guard }, input);
  const address = addressPages({ config, store, logger, metrics, wakeMail, wakeWebhooks });
  const limitSubmissions = signupRateLimit(config, logger, store.rate);
  const sameSiteOnly = refuseCrossSite(config, logger);

  // Every page embeds the public config, and /privacy names the services webhooks send addresses
  // to, which the CLI can change at any time.
  const recipientsMaxAgeMs = deps.recipientsMaxAgeMs ?? RECIPIENTS_MAX_AGE_MS;
  const recipients = addressRecipients({
    webhooks: store.webhooks,
    logger,
    maxAgeMs: recipientsMaxAgeMs,
  });
  const renderer = createRenderer({
    assets,
    publicConfig: async () => publicConfigOf(config, await recipients.current()),
    logger,
    siteUrl: config.siteUrl,
    languages: config.languages,
    pagePolicy: headers.pagePolicy,
    // What each request's loaders and actions call (client/route-context.ts).
    requestContext: (req) => {
      const context = new RouterContextProvider();
      context.set(waitlistFormContext, form.submitterFor(req));
      context.set(addressPagesContext, address.contextFor(req));
      // A page for one request carries an issue time of its own, which a form it came back
      // from carries over (guard/issued-field.ts).
      const { field } = guard;
      const posted = (req as BodyRequest).body;
      const issued = posted instanceof URLSearchParams ? posted.get(ISSUED_FIELD) : undefined;
      if (field) context.set(issuedFieldContext, () => field.issueFor(issued));
      // Where the visitor came from, which the page's links and plain form carry on.
      context.set(pageSourceContext, pageSource(req, siteOrigin(config, req)));
      return context;
    },
    sharedContext: () => {
      const context = new RouterContextProvider();
      if (guard.field) context.set(issuedFieldContext, guard.field.issue);
      return context;
    },
  });
  const form = nativeForm(submitSignup, logger);
  const prerendered = prerenderedPages({
    render: renderer.renderShared,
    publicConfig: renderer.publicConfig,
    publicConfigMaxAgeMs: recipientsMaxAgeMs,
    securityHeaders: headers.fixed,
    pagePolicy: headers.pagePolicy,
    cacheSeconds: config.pageCacheSeconds,
    siteUrl: config.siteUrl,
    logger,
    languages: config.languages,
    // Rendered again before the issue time on `/` goes stale.
    maxAgeMs: guard.field?.reissueMs,
    now: deps.now,
  });

  const files = staticFiles(headers.fixed);
  const health = healthProbe(deps.outboxWatch ?? watchOutbox(store.outbox), headers.fixed);

  const consoleCss = `${assets.css}${CONSOLE_CSS}`;
  return requestPipeline({
    trust,
    securityHeaders: headers.fixed,
    logger,
    metrics,
    // Answered from memory, before Express, once what they answer with is ready (a page rendered
    // after its first request, the static files read at start, the probe's last reading): GET and
    // HEAD of /, /activate and /privacy exactly as linked, /healthz, and every static file.
    fromMemory: [prerendered.answer, health.answer, files.answer],
    router: siteRoutes({
      config,
      store,
      logger,
      metrics,
      trust,
      renderer,
      prerendered,
      health,
      files,
      api: apiHandler({
        config,
        subscriptions: store.subscriptions,
        submitSignup,
        limitSubmissions,
        refuseCrossSite: sameSiteOnly,
        logger,
        proof: guard.proof,
      }),
      limitSubmissions,
      sameSiteOnly,
      address,
      bounces: bounceRoutes({
        config,
        store,
        logger,
        metrics,
        wakeWebhooks,
        fetchText: deps.bounceFetch,
      }),
      consoleCss,
      consolePolicy: securityHeaders(config, [sha256Source(consoleCss)]).pagePolicy([]),
    }),
  });
}

interface SiteRouteParts {
  config: Config;
  store: Store;
  logger: Logger;
  metrics: Metrics;
  trust: TrustProxy;
  renderer: ReturnType<typeof createRenderer>;
  prerendered: ReturnType<typeof prerenderedPages>;
  health: ReturnType<typeof healthProbe>;
  files: ReturnType<typeof staticFiles>;
  api: ReturnType<typeof apiHandler>;
  limitSubmissions: Middleware;
  sameSiteOnly: Middleware;
  address: ReturnType<typeof addressPages>;
  bounces: ReturnType<typeof bounceRoutes>;
  consoleCss: string;
  consolePolicy: string;
}

/** Every path the site answers, in the order Express tries them. */
function siteRoutes(parts: SiteRouteParts) {
  const { config, store, logger, metrics, renderer, limitSubmissions, sameSiteOnly } = parts;
  const app = express();
  // Express's own getters (req.ip, req.protocol) agree with the request pipeline's client.
  app.set('trust proxy', parts.trust);
  app.disable('x-powered-by');

  // /api and everything under it: POST /api/subscriptions, POST /api/subscription-activation,
  // GET /api/subscription-info/{provider}/{externalId} (api/router.ts). Small JSON, uncompressed.
  app.use(answeredAs('api', (req) => isApiUrl(req.url!), parts.api));

  // POST /bounces/<provider>: the mail provider's bounces and complaints (bounces/index.ts), each
  // route 404 until its setting is there. Small JSON, uncompressed, like /api.
  app.use(answeredAs('api', isBounceUrl, parts.bounces.handle));

  // GET and HEAD of /, /activate and /privacy, exactly as linked: rendered once, kept with their
  // headers and their brotli and gzip bodies (pages/prerendered.ts). Here when not kept yet, or
  // when due to be rendered again; the request pipeline answers the rest from memory.
  app.use(answeredAs('page', parts.prerendered.covers, parts.prerendered.serve));

  // Compression (gzip, brotli where accepted). React calls res.flush() after each chunk, so
  // streamed HTML still leaves in pieces.
  app.use(compression());

  // Health probes for load balancers and the Docker HEALTHCHECK. The request pipeline answers
  // /healthz itself; Express only sees its other spellings (/healthz/, /HEALTHZ).
  app.get('/healthz', (req, res) => parts.health.send(req, res, contextOf(req)));
  app.get('/readyz', readinessCheck(store, config.databaseTimeoutMs));

  // Static files (the hashed build output, public/) are answered from memory by the request
  // pipeline; anything else under /assets is a plain 404, never the HTML page.
  app.use(ASSETS_URL_PREFIX, parts.files.missingAsset);

  // A language's home is '/ru/', as linked: a bare '/ru' is sent there. With a query it is the
  // page itself ('/ru?joined', where React Router sends a plain form back), canonically '/ru/'.
  for (const language of config.languages.filter((each) => each !== DEFAULT_LANGUAGE)) {
    const base = languageBase(language);
    app.get(base, (req, res, next) =>
      req.originalUrl === base ? res.redirect(301, `${base}/`) : next(),
    );
  }

  // /robots.txt and /sitemap.xml name the site's origin.
  app.use(seoFiles(config));

  // The waitlist form without JavaScript: a native POST to /?index (docs/product.md §4,
  // docs/decisions/0006-no-javascript.md), refused cross-site before anything is read or counted.
  // Each page's POST in every language served: '/' and '/ru/', '/confirm' and '/ru/confirm', ….
  const inLanguages = (path: string) => config.languages.map((language) => pathIn(language, path));
  app.post(
    inLanguages('/'),
    sameSiteOnly,
    limitSubmissions,
    readBody,
    readFields,
    renderer.streamPage,
  );
  // The activation form without JavaScript: a POST answered with 303 to the web app
  // (docs/product.md §4), so the key stays out of URLs our proxies log. GET still works for a page
  // cached before.
  const openActivationForm = openActivation(config.webAppUrl);
  app.post(inLanguages(ACTIVATION.formAction), sameSiteOnly, readBody, openActivationForm);
  app.get(inLanguages(ACTIVATION.formAction), openActivationForm);
  // The address pages' buttons: React Router runs the route's action with the address
  // handler's context. Confirming comes from our own page only. /leave?token=… is also the
  // one-click unsubscribe URL of every mail, which mail providers POST from their servers (RFC
  // 8058): the token is its authority, so no origin check and no limit; /leave alone mails a link,
  // so it is checked and limited like a signup.
  app.post(inLanguages(CONFIRM_PATH), sameSiteOnly, readBody, readFields, renderer.streamPage);
  app.post(
    inLanguages(LEAVE_PATH),
    (req, res, next) => (isLeaveByLink(req) ? next('route') : next()),
    sameSiteOnly,
    limitSubmissions,
    readBody,
    readFields,
    renderer.streamPage,
  );
  app.post(inLanguages(LEAVE_PATH), readBody, readFields, renderer.streamPage);
  // A person's own data (decision 0036): /privacy's form mails a data link, so it is checked and
  // limited like /leave's; the link page's button posts the token (in its body, never its query)
  // and gets the file, or the page saying why the link does nothing.
  app.post(
    inLanguages(PRIVACY_PATH),
    sameSiteOnly,
    limitSubmissions,
    readBody,
    readFields,
    renderer.streamPage,
  );
  app.post(
    inLanguages(DATA_PATH),
    sameSiteOnly,
    limitSubmissions,
    readBody,
    readFields,
    parts.address.downloadData,
    renderer.streamPage,
  );

  // The operators' console (its paths: console/paths.ts): server-rendered, no script, off while
  // no account exists.
  app.use(
    CONSOLE_MOUNT,
    consoleRouter({
      config,
      store,
      logger,
      metrics,
      css: parts.consoleCss,
      policy: parts.consolePolicy,
    }),
  );

  // Everything else is a page, rendered by React on the server for this request.
  app.use((req, res, next) => {
    if (req.method === 'GET' || req.method === 'HEAD') return next();
    res.setHeader('Allow', 'GET, HEAD');
    sendText(res, 405, CONTENT_TYPES.text, 'Method not allowed');
  }, renderer.streamPage);

  // Last resort: a client's mistake gets its status; ours is logged, and the client sees nothing
  // internal.
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const { status, message, ours, retryAfterSeconds, reason } = statusAndMessage(err);
    if (ours) logger.error({ err }, 'unhandled error');
    if (retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(retryAfterSeconds));
    if (err instanceof HttpError || retryAfterSeconds !== undefined)
      return sendFormError(req, res, status, { message, reason });
    sendText(res, status, CONTENT_TYPES.text, message);
  });

  return app;
}
