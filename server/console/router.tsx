// The console's router: what every console request crosses, then the route modules (routes/),
// each route at its path from the table (paths.ts). While no account exists every path answers
// 404 (the console is off). It answers only over https or to loopback (https-only.tsx). Every
// answer is private (no-store, noindex) under the site's strict CSP. A route is the operator's
// unless it is the login form: it needs a live session, and a POST the session's CSRF token.
// Every POST comes from the site's own origin (ALLOWED_ORIGINS is for the API's partners, not
// for the console). Handlers may be async: Express 5 forwards a rejected promise to the error
// handler.
import { createHash, timingSafeEqual } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import multer, { MulterError } from 'multer';
import { readBody, fieldsOf } from '../http/body';
import { refuseCrossSite } from '../http/cross-site';
import { CONTENT_TYPES, HttpError, sendText } from '../http/errors';
import { CSP_HEADER } from '../http/security-headers';
import { httpsOrLoopback } from './https-only';
import { pageHtml } from './layout';
import { CONSOLE_PATHS } from './paths';
import { anyNotText, NOT_TEXT_ERROR, text } from './request';
import type { ConsoleDeps, ConsoleRoute, Page, RouteModule } from './route';
import { auditRoutes } from './routes/audit';
import { dashboardRoutes } from './routes/dashboard';
import { exportRoutes } from './routes/export';
import { importRoutes } from './routes/import';
import { inviteRoutes } from './routes/invite';
import { loginRoutes } from './routes/login';
import { queueRoutes } from './routes/queues';
import { removeRoutes } from './routes/remove';
import { signupsRoutes } from './routes/signups';
import { webhookRoutes } from './routes/webhooks';
import { consoleCookie, requireSession } from './session';

/** The route modules, in the order the router declares their routes. */
const MODULES: RouteModule[] = [
  loginRoutes,
  dashboardRoutes,
  signupsRoutes,
  inviteRoutes,
  exportRoutes,
  importRoutes,
  removeRoutes,
  queueRoutes,
  webhookRoutes,
  auditRoutes,
];

/** Compared as digests: equal lengths whatever the characters, and no timing to learn from. */
const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
const sameText = (a: string, b: string) => timingSafeEqual(digest(a), digest(b));

export function consoleRouter(deps: ConsoleDeps) {
  const { store, css } = deps;
  const router = express.Router();
  const session = requireSession(store, consoleCookie(deps.config.siteUrl));
  const overHttps = httpsOrLoopback(deps.config, css, deps.logger);
  const sameSiteOnly = refuseCrossSite(
    { siteUrl: deps.config.siteUrl, allowedOrigins: [] },
    deps.logger,
  );

  router.use(async (req: Request, res: Response, next: NextFunction) => {
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Robots-Tag', 'noindex');
    res.setHeader(CSP_HEADER, deps.policy);
    if ((await store.admins.count()) === 0)
      return sendText(res, 404, CONTENT_TYPES.text, 'Not found');
    if (!overHttps(req, res)) return;
    // Searches, filters and page cursors come in the query.
    if (anyNotText(req.query)) return next(new HttpError(400, NOT_TEXT_ERROR));
    next();
  });

  /**
   * Every state-changing POST of a session carries its CSRF token (beside SameSite=Strict and the
   * origin check).
   */
  const csrf = (req: Request, res: Response, next: NextFunction) => {
    if (!sameText(text(fieldsOf(req).csrf), res.locals.consoleSession.csrf))
      return sendText(
        res,
        403,
        CONTENT_TYPES.text,
        'The form has expired: reload the page and try again.',
      );
    next();
  };
  /** Shows a page in the console's layout. */
  const show = (res: Response, page: Page) =>
    sendText(
      res,
      page.status ?? 200,
      CONTENT_TYPES.html,
      pageHtml(css, page, res.locals.consoleSession),
    );
  /**
   * An upload's body, read in memory once the session is known: nobody logged out makes the site
   * hold a file. Past its size, the route's own 413 page, once multer has drained the rest.
   */
  const readUpload =
    ({ field, maxBytes, tooLarge }: NonNullable<ConsoleRoute['upload']>) =>
    (req: Request, res: Response, next: NextFunction) => {
      const parse = multer({
        storage: multer.memoryStorage(),
        limits: { fileSize: maxBytes, files: 1, fields: 10, fieldSize: 16 * 1024, parts: 12 },
      }).single(field);
      parse(req, res, (err?: unknown) => {
        if (err instanceof MulterError && err.code === 'LIMIT_FILE_SIZE')
          return show(res, tooLarge);
        next(err ? new HttpError(400, 'Malformed form data') : undefined);
      });
    };
  /** What a route's request crosses before its handler, by method and by who may use it. */
  const checks = ({ method, open, upload }: ConsoleRoute) => {
    if (method === 'get') return open ? [] : [session];
    if (upload) return [sameSiteOnly, session, readUpload(upload), csrf];
    return open ? [sameSiteOnly, readBody] : [sameSiteOnly, readBody, session, csrf];
  };
  /** Runs a route's handler, and shows the page it returns in the console's layout. */
  const answer = (route: ConsoleRoute) => async (req: Request, res: Response) => {
    const page = await route.handle(req, res);
    if (page) show(res, page);
  };

  for (const route of MODULES.flatMap((routes) => routes(deps)))
    router[route.method](CONSOLE_PATHS[route.name], ...checks(route), answer(route));

  // Anything else: for a logged-in operator a 404, for anyone else the login page.
  router.use(session, (_req: Request, res: Response) =>
    sendText(res, 404, CONTENT_TYPES.text, 'Not found'),
  );
  return router;
}
