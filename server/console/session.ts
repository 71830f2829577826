// The console's cookies (the session, and the device cookie of a browser that logged in before)
// and the middleware that requires a live session. Each cookie is HttpOnly, SameSite=Strict and
// Path=/. It is Secure with the __Host- prefix whenever SITE_URL is https, whatever the request
// says, and otherwise over https (as TRUST_PROXY lets the request say).
import { parse as parseCookies } from 'cookie';
import type { NextFunction, Request, Response } from 'express';
import { CONSOLE_COOKIE, secureName } from '../http/site-cookies';
import type { Store } from '../store';
import { csrfToken, sessionAccount } from './login';
import { CONSOLE_URLS } from './paths';

/** The logged-in operator, as every console handler after requireSession reads it. */
export interface ConsoleSession {
  email: string;
  sessionId: string;
  /** The token every form of the session carries. */
  csrf: string;
}

declare global {
  // Express's own extension point for typed res.locals.
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      consoleSession: ConsoleSession;
    }
  }
}

/** One of the console's cookies on one site: read from a request, set on its answer. */
export interface ConsoleCookie {
  read(req: Request): string | undefined;
  /** Sets the cookie; an empty value with maxAgeMs 0 clears it. */
  set(req: Request, res: Response, value: string, maxAgeMs: number): void;
}

/**
 * The cookie `plainName` for a site at `siteUrl` (the session's by default). An https site's
 * cookie stays Secure even on a request that looks like plain http (a TLS proxy TRUST_PROXY does
 * not name, an ssh tunnel to loopback).
 */
export function consoleCookie(
  siteUrl: string | undefined,
  plainName = CONSOLE_COOKIE,
): ConsoleCookie {
  const httpsSite = siteUrl?.startsWith('https:') ?? false;
  const secure = (req: Request) => httpsSite || req.secure;
  const name = (req: Request) => (secure(req) ? secureName(plainName) : plainName);
  return {
    read: (req) => parseCookies(req.headers.cookie ?? '')[name(req)],
    set: (req, res, value, maxAgeMs) =>
      res.cookie(name(req), value, {
        path: '/',
        httpOnly: true,
        sameSite: 'strict',
        secure: secure(req),
        maxAge: maxAgeMs,
      }),
  };
}

/** Logged in (res.locals.consoleSession), or off to the login page. */
export function requireSession(store: Store, cookie: ConsoleCookie) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const sessionId = cookie.read(req);
    const email = await sessionAccount({ store }, sessionId);
    if (!email || !sessionId) return res.redirect(303, CONSOLE_URLS.login);
    res.locals.consoleSession = { email, sessionId, csrf: csrfToken(sessionId) };
    next();
  };
}
