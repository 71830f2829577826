// The console's session cookie and the middleware that requires a live session. The cookie is
// HttpOnly, SameSite=Strict and Path=/; over https (as TRUST_PROXY lets the request say) it is
// Secure with the __Host- prefix.
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

const cookieName = (req: Request) => (req.secure ? CONSOLE_SECURE_COOKIE : CONSOLE_COOKIE);

export function sessionCookie(req: Request): string | undefined {
  return parseCookies(req.headers.cookie ?? '')[cookieName(req)];
}

/** Sets the session cookie; an empty value with maxAgeMs 0 clears it. */
export function setSessionCookie(
  req: Request,
  res: Response,
  value: string,
  maxAgeMs: number,
): void {
  res.cookie(cookieName(req), value, {
    path: '/',
    httpOnly: true,
    sameSite: 'strict',
    secure: req.secure,
    maxAge: maxAgeMs,
  });
}

/** Logged in (res.locals.consoleSession), or off to the login page. */
export function requireSession(store: Store) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const sessionId = sessionCookie(req);
    const email = await sessionAccount({ store }, sessionId);
    if (!email || !sessionId) return res.redirect(303, '/admin/login');
    res.locals.consoleSession = { email, sessionId, csrf: csrfToken(sessionId) };
    next();
  };
}
