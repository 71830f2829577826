// Security headers (helmet), worked out once at start-up. Every answer gets the fixed set, whose
// policy lets only the site's own files run (the request pipeline sets it). Pages run React's
// inline bootstrap scripts and carry their CSS inline, so their Content-Security-Policy also lists
// those scripts (a per-request nonce, or hashes for a prerendered page) and the stylesheet's hash.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet from 'helmet';
import type { Config } from '../config';

export type HeaderList = ReadonlyArray<readonly [string, string]>;

interface SecurityHeaders {
  /** Every answer's headers, policy included. */
  fixed: HeaderList;
  /** A page's policy: the fixed one plus these script sources and the inline stylesheet. */
  pagePolicy(scriptSources: string[]): string;
}

/** Where a page's script sources go in its policy template. */
const SCRIPT_SOURCES = "'orgnote-page-scripts'";

function cspOptions(config: Pick<Config, 'webAppUrl'>, scriptSrc: string[], styleSrc: string[]) {
  return {
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      scriptSrc,
      scriptSrcAttr: ["'none'"],
      styleSrc,
      imgSrc: ["'self'", 'data:'],
      fontSrc: ["'self'"],
      connectSrc: ["'self'"],
      manifestSrc: ["'self'"],
      objectSrc: ["'none'"],
      baseUri: ["'none'"],
      frameAncestors: ["'none'"],
      // The native activation form's 303 leads to the web app, and form-action covers redirects
      // (docs/product.md §4).
      formAction: ["'self'", new URL(config.webAppUrl).origin],
    },
  };
}

/** The headers helmet sets, recorded from helmet itself so the policy lives in one place. */
function record(
  config: Pick<Config, 'webAppUrl'>,
  scriptSrc: string[],
  styleSrc: string[],
): Map<string, string> {
  const headers = new Map<string, string>();
  const recorder = {
    setHeader: (name: string, value: string | number) => headers.set(name, String(value)),
    removeHeader: (name: string) => headers.delete(name),
  };
  // strict-origin, not the browsers' default strict-origin-when-cross-origin: a page's own requests
  // (its scripts, its form's POST, the next page) then name only our origin, never the URL, whose
  // query may hold a mailed token (/confirm, /leave) or an address (/activate?email=): the proxy's
  // log records each request's Referer. The Origin header that forms are checked on is unchanged.
  const policy = helmet({
    contentSecurityPolicy: cspOptions(config, scriptSrc, styleSrc),
    referrerPolicy: { policy: 'strict-origin' },
  });
  policy({} as IncomingMessage, recorder as unknown as ServerResponse, () => {});
  return headers;
}

/** `inlineStyleHashes`: 'sha256-…' sources of the stylesheet pages carry inline. */
export function securityHeaders(
  config: Pick<Config, 'webAppUrl'>,
  inlineStyleHashes: string[] = [],
): SecurityHeaders {
  const fixed = record(config, ["'self'"], ["'self'"]);
  const template = record(config, ["'self'", SCRIPT_SOURCES], ["'self'", ...inlineStyleHashes]).get(
    'Content-Security-Policy',
  )!;
  return {
    fixed: [...fixed],
    pagePolicy: (scriptSources) =>
      template.replace(` ${SCRIPT_SOURCES}`, scriptSources.map((source) => ` ${source}`).join('')),
  };
}

export const CSP_HEADER = 'Content-Security-Policy';

/** A fresh nonce for one streamed page. */
export function newNonce(): string {
  return randomBytes(16).toString('base64');
}
