// The console's session cookie and the middleware that requires a live session. The cookie is
// HttpOnly, SameSite=Strict and Path=/. It is Secure with the __Host- prefix whenever SITE_URL is
// https, whatever the request says, and otherwise over https (as TRUST_PROXY lets the request say).
import { parse as parseCookies } from 'cookie';
import type { NextFunction, Request, Response } from 'express';
import { CONSOLE_COOKIE, CONSOLE_SECURE_COOKIE } from '../http/site-cookies';
import type { Store } from '../store';
import { csrfToken, sessionAccount } from './login';

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

/** The session cookie of one site: read from a request, set on its answer. */
export interface SessionCookie {
  read(req: Request): string | undefined;
  /** Sets the cookie; an empty value with maxAgeMs 0 clears it. */
  set(req: Request, res: Response, value: string, maxAgeMs: number): void;
}

/**
 * The cookie for a site at `siteUrl`. An https site's cookie stays Secure even on a request that
 * looks like plain http (a TLS proxy TRUST_PROXY does not name, an ssh tunnel to loopback).
 */
export function sessionCookie(siteUrl: string | undefined): SessionCookie {
  const httpsSite = siteUrl?.startsWith('https:') ?? false;
  const secure = (req: Request) => httpsSite || req.secure;
  const name = (req: Request) => (secure(req) ? CONSOLE_SECURE_COOKIE : CONSOLE_COOKIE);
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
export function requireSession(store: Store, cookie: SessionCookie) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const sessionId = cookie.read(req);
    const email = await sessionAccount({ store }, sessionId);
    if (!email || !sessionId) return res.redirect(303, '/admin/login');
    res.locals.consoleSession = { email, sessionId, csrf: csrfToken(sessionId) };
    next();
  };
}
