// The console's pages (issue 24): server-rendered HTML with no script at all, so visitors of the
// site download nothing of it and every page works without JavaScript. They wear the site's own
// stylesheet (inline, allowed by its hash in the CSP), so they need no file of their own.
import { escapeMarkup as e } from '../../shared/markup';

export interface PageFrame {
  title: string;
  /** The site's stylesheet, inlined as the site's pages inline it. */
  css: string;
  /** Logged in: the account and the session's CSRF token (every page then has a Log out button). */
  session?: { email: string; csrf: string };
}

/** A POST form carrying the session's CSRF token. */
export function postForm(action: string, csrf: string, inner: string, className = ''): string {
  return `<form method="post" action="${e(action)}"${className ? ` class="${className}"` : ''}><input type="hidden" name="csrf" value="${e(csrf)}">${inner}</form>`;
}

export function page(frame: PageFrame, body: string): string {
  const logout = frame.session
    ? postForm('/admin/logout', frame.session.csrf, `<button type="submit" class="button button-secondary">Log out</button>`, 'console-logout')
    : '';
  return (
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<meta name="robots" content="noindex"><title>${e(frame.title)} · OrgNote console</title><style>${frame.css}</style></head>` +
    `<body><header class="header"><a class="brand" href="/admin">OrgNote console</a>${
      frame.session
        ? '<nav aria-label="Console"><a href="/admin/signups">Signups</a> <a href="/admin/mail">Mail</a> <a href="/admin/outbox">Outbox</a> <a href="/admin/audit">Audit</a></nav>'
        : ''
    }<div class="header-actions">${
      frame.session ? `<span class="console-account">${e(frame.session.email)}</span>${logout}` : ''
    }</div></header><main id="main" class="main">${body}</main></body></html>`
  );
}

export function loginPage(css: string, options: { email?: string; error?: string } = {}): string {
  const error = options.error ? `<p class="field-message" role="alert" id="login-error">${e(options.error)}</p>` : '';
  const described = options.error ? ' aria-describedby="login-error"' : '';
  return page(
    { title: 'Log in', css },
    `<section class="form-card address-page" aria-labelledby="login-title"><h1 id="login-title" class="form-title">Log in</h1>${error}` +
      '<form method="post" action="/admin/login">' +
      `<div class="field"><label class="field-label" for="email">Email address</label><input class="field-input" id="email" name="email" type="email" autocomplete="username" required value="${e(options.email ?? '')}"${described}></div>` +
      '<div class="field"><label class="field-label" for="password">Password</label><input class="field-input" id="password" name="password" type="password" autocomplete="current-password" required></div>' +
      '<div class="field"><label class="field-label" for="code">Code from your authenticator app (if two-factor is on)</label><input class="field-input" id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]*"></div>' +
      '<button type="submit" class="button button-primary submit-button">Log in</button></form></section>',
  );
}
