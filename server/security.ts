// Security headers (helmet) with a per-request CSP nonce. The nonce is made before the first byte,
// put into the CSP header, and handed to React (renderToPipeableStream + StaticRouterProvider)
// through res.locals, so only the scripts the server rendered can run.
import { randomBytes } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';
import type { Config } from './config';

export function cspNonceOf(res: Response): string {
  return res.locals.cspNonce as string;
}

function assignNonce(_req: Request, res: Response, next: NextFunction) {
  res.locals.cspNonce = randomBytes(16).toString('base64');
  next();
}

export function securityHeaders(config: Pick<Config, 'webAppUrl'>): RequestHandler[] {
  const webAppOrigin = new URL(config.webAppUrl).origin;
  const nonce = (_req: unknown, res: unknown) => `'nonce-${cspNonceOf(res as Response)}'`;
  return [
    assignNonce,
    helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          defaultSrc: ["'self'"],
          scriptSrc: ["'self'", nonce],
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
    }),
  ];
}
