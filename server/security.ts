// Security headers (helmet). Every answer gets fixed headers worked out once, with a policy that
// lets only the site's own script files run; the API, which answers without Express, sets the
// same ones. Pages carry React's inline bootstrap scripts, so right before the renderer their
// policy is replaced by one with a per-request nonce, which res.locals hands to React; the page
// cache swaps it for hashes of those scripts (page-cache.ts).
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler, Response } from 'express';
import helmet, { contentSecurityPolicy } from 'helmet';
import type { Config } from './config';

export function cspNonceOf(res: Response): string {
  return res.locals.cspNonce as string;
}

type ScriptSource = string | ((req: IncomingMessage, res: ServerResponse) => string);

/** The Content-Security-Policy options, the same everywhere but for where scripts may come from. */
function cspOptions(config: Pick<Config, 'webAppUrl'>, scriptSrc: ScriptSource[]) {
  return {
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
      formAction: ["'self'", new URL(config.webAppUrl).origin],
    },
  };
}

/** Every answer: the fixed headers (fixedHeaders), set as recorded, without running helmet again. */
export function setFixedHeaders(fixed: FixedHeaders): RequestHandler {
  return (_req, res, next) => {
    for (const [name, value] of fixed) res.setHeader(name, value);
    next();
  };
}

/** In front of the renderer: a fresh nonce for this page, in its CSP and in res.locals for React. */
export function pageSecurityHeaders(config: Pick<Config, 'webAppUrl'>): RequestHandler {
  // Only the policy changes: every other header is already set (setFixedHeaders).
  const forPages = contentSecurityPolicy(cspOptions(config, ["'self'", (_req, res) => `'nonce-${cspNonceOf(res as Response)}'`]));
  return (req, res, next) => {
    res.locals.cspNonce = randomBytes(16).toString('base64');
    forPages(req, res, next);
  };
}

export type FixedHeaders = ReadonlyArray<readonly [string, string]>;

/**
 * What helmet sets with a policy of 'self' scripts only, for every answer but a page. Recorded once
 * from helmet itself, so the policy lives in one place while the API, which answers without
 * Express, still sends every header.
 */
export function fixedHeaders(config: Pick<Config, 'webAppUrl'>): FixedHeaders {
  const headers = new Map<string, string>();
  const recorder = {
    setHeader: (name: string, value: string | number) => headers.set(name, String(value)),
    removeHeader: (name: string) => headers.delete(name),
  };
  const policy = helmet({ contentSecurityPolicy: cspOptions(config, ["'self'"]), referrerPolicy: { policy: 'strict-origin-when-cross-origin' } });
  policy({} as IncomingMessage, recorder as unknown as ServerResponse, () => {});
  return [...headers];
}
