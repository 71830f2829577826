// Security headers (helmet). Pages get a per-request CSP nonce, made before the first byte, put into
// the CSP header and handed to React through res.locals, so only the scripts the server rendered
// can run; the page cache swaps it for hashes of those scripts (page-cache.ts). Answers that run
// no script (the API, assets, the health probe) get fixed headers worked out once.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler, Response } from 'express';
import helmet from 'helmet';
import type { Config } from './config';
import { ASSETS_URL_PREFIX } from './paths';

export function cspNonceOf(res: Response): string {
  return res.locals.cspNonce as string;
}

/** Pages need a nonce; static files and the health probe run no script, so theirs is fixed. */
function needsNonce(path: string): boolean {
  return !path.startsWith(`${ASSETS_URL_PREFIX}/`) && path !== '/healthz';
}

type ScriptSource = string | ((req: IncomingMessage, res: ServerResponse) => string);

function securityPolicy(config: Pick<Config, 'webAppUrl'>, scriptSrc: ScriptSource[]) {
  const webAppOrigin = new URL(config.webAppUrl).origin;
  return helmet({
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
}

/** `fixed`: the same headers with a policy that never changes, worked out once (fixedHeaders). */
export function securityHeaders(config: Pick<Config, 'webAppUrl'>, fixed: FixedHeaders = fixedHeaders(config)): RequestHandler {
  const forPages = securityPolicy(config, ["'self'", (_req, res) => `'nonce-${cspNonceOf(res as Response)}'`]);
  return (req, res, next) => {
    if (!needsNonce(req.path)) {
      for (const [name, value] of fixed) res.setHeader(name, value);
      return next();
    }
    res.locals.cspNonce = randomBytes(16).toString('base64');
    forPages(req, res, next);
  };
}

export type FixedHeaders = ReadonlyArray<readonly [string, string]>;

/**
 * What helmet sets on answers that run no script (API answers, assets, the health probe), with a
 * policy of 'self' scripts only. Recorded once from helmet itself, so the policy lives in one place
 * while the API, which answers without Express, still sends every header.
 */
export function fixedHeaders(config: Pick<Config, 'webAppUrl'>): FixedHeaders {
  const headers = new Map<string, string>();
  const recorder = {
    setHeader: (name: string, value: string | number) => headers.set(name, String(value)),
    removeHeader: (name: string) => headers.delete(name),
  };
  securityPolicy(config, ["'self'"])({} as IncomingMessage, recorder as unknown as ServerResponse, () => {});
  return [...headers];
}
