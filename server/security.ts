// Security headers (helmet) with a per-request CSP nonce. The nonce is made before the first byte,
// put into the CSP header, and handed to React (renderToPipeableStream + StaticRouterProvider)
// through res.locals, so only the scripts the server rendered can run.
import { randomBytes } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import helmet from 'helmet';
import type { Config } from './config';

export function cspNonceOf(res: Response): string {
  return res.locals.cspNonce as string;
}

/** Pages need a nonce; API answers and static files run no script, so theirs is fixed. */
function needsNonce(path: string): boolean {
  return !path.startsWith('/api/') && !path.startsWith('/assets/') && path !== '/healthz';
}

export function securityHeaders(config: Pick<Config, 'webAppUrl'>): RequestHandler {
  const webAppOrigin = new URL(config.webAppUrl).origin;
  const policy = (scriptSrc: (string | ((req: unknown, res: unknown) => string))[]) =>
    helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          defaultSrc: ["'self'"],
          scriptSrc,
          scriptSrcAttr: ["'none'"],
          styleSrc: ["'self'"],
          imgSrc: ["'self'", 'data:'],
          fontSrc: ["'self'"],
          connectSrc: ["'self'"],
          manifestSrc: ["'self'"],
          objectSrc: ["'none'"],
          baseUri: ["'none'"],
          frameAncestors: ["'none'"],
          // The native activation form submits to the web app (spec §4).
          formAction: ["'self'", webAppOrigin],
        },
      },
      referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    });
  const forPages = policy(["'self'", (_req, res) => `'nonce-${cspNonceOf(res as Response)}'`]);
  // Same headers, but a policy helmet can build once instead of per request.
  const forOthers = policy(["'self'"]);
  return (req, res, next) => {
    if (!needsNonce(req.path)) return forOthers(req, res, next);
    res.locals.cspNonce = randomBytes(16).toString('base64');
    forPages(req, res, next);
  };
}
