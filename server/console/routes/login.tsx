// Logging in and out (the operation: login.ts). The login form is the one route anyone may use;
// it posts the address, the password, and the code when the account has two-factor. A refused
// login shows the form again with what was typed; a throttled one (429) gets the same page for
// everyone, made once. Logging out ends the session and clears its cookie.
import type { Request, Response } from 'express';
import { asText, fieldsOf } from '../../http/body';
import { compress, preferredEncoding } from '../../http/encodings';
import { CONTENT_TYPES } from '../../http/errors';
import { contextOf } from '../../http/request-pipeline';
import { DEVICE_COOKIE } from '../../http/site-cookies';
import { NO_METRICS } from '../../metrics';
import { DEVICE_COOKIE_MAX_MS } from '../device-cookie';
import { pageHtml } from '../layout';
import { login, logout, SESSION_LIMITS } from '../login';
import { CONSOLE_URLS } from '../paths';
import { text } from '../request';
import type { Page, RouteModule } from '../route';
import { consoleCookie } from '../session';

const THROTTLED_ERROR = 'Too many failed attempts. Try again later.';

// View

interface LoginViewProps {
  /** What was typed, shown again after a refusal. */
  email?: string;
  error?: string;
}

export function LoginView({ email = '', error }: LoginViewProps) {
  return (
    <section className="form-card address-page" aria-labelledby="login-title">
      <h1 id="login-title" className="form-title">
        Log in
      </h1>
      {error && (
        <p className="field-message" role="alert" id="login-error">
          {error}
        </p>
      )}
      <form method="post" action={CONSOLE_URLS.login}>
        <div className="field">
          <label className="field-label" htmlFor="email">
            Email address
          </label>
          <input
            className="field-input"
            id="email"
            name="email"
            type="email"
            autoComplete="username"
            required
            defaultValue={email}
            aria-describedby={error ? 'login-error' : undefined}
          />
        </div>
        <div className="field">
          <label className="field-label" htmlFor="password">
            Password
          </label>
          <input
            className="field-input"
            id="password"
            name="password"
            type="password"
            autoComplete="current-password"
            required
          />
        </div>
        <div className="field">
          <label className="field-label" htmlFor="code">
            Code from your authenticator app (if two-factor is on)
          </label>
          <input
            className="field-input"
            id="code"
            name="code"
            inputMode="numeric"
            autoComplete="one-time-code"
            pattern="[0-9 ]*"
          />
        </div>
        <button type="submit" className="button button-primary submit-button">
          Log in
        </button>
      </form>
    </section>
  );
}

const loginPage = (props: LoginViewProps = {}, status = 200): Page => ({
  title: 'Log in',
  view: <LoginView {...props} />,
  status,
});

// Routes: the form, logging in, logging out.

export const loginRoutes: RouteModule = ({ store, config, css, metrics = NO_METRICS }) => {
  const cookie = consoleCookie(config.siteUrl);
  const deviceCookie = consoleCookie(config.siteUrl, DEVICE_COOKIE);

  // A throttled login's page is the same for everyone (the typed address is not echoed): made
  // once in each encoding, so a flood costs no render and no compression.
  const throttledPage = compress(
    Buffer.from(pageHtml(css, loginPage({ error: THROTTLED_ERROR })), 'utf8'),
  );
  const throttled = (req: Request, res: Response, retryAfterSeconds: number) => {
    const encoding = preferredEncoding(req);
    const body = throttledPage[encoding];
    res.status(429).set({
      'Content-Type': CONTENT_TYPES.html,
      'Retry-After': String(retryAfterSeconds),
      Vary: 'Accept-Encoding',
      ...(encoding !== 'identity' && { 'Content-Encoding': encoding }),
      'Content-Length': String(body.length),
    });
    res.end(body);
  };

  return [
    { method: 'get', name: 'login', open: true, handle: () => loginPage() },
    {
      method: 'post',
      name: 'login',
      open: true,
      handle: async (req, res) => {
        const fields = fieldsOf(req);
        const email = text(fields.email).trim();
        const credentials = {
          email,
          password: asText(fields.password),
          code: asText(fields.code),
          ip: req.ip ?? '',
          device: deviceCookie.read(req),
        };
        const outcome = await login({ store }, credentials);
        if (outcome.kind === 'throttled') {
          metrics.loginThrottled();
          return throttled(req, res, outcome.retryAfterSeconds);
        }
        if (outcome.kind === 'refused')
          return loginPage({ email, error: 'Wrong address, password or code.' }, 401);
        cookie.set(req, res, outcome.sessionId, SESSION_LIMITS.maxMs);
        deviceCookie.set(req, res, outcome.device, DEVICE_COOKIE_MAX_MS);
        res.redirect(303, CONSOLE_URLS.dashboard);
      },
    },
    {
      method: 'post',
      name: 'logout',
      handle: async (req, res) => {
        const { sessionId, email } = res.locals.consoleSession;
        await logout({ store }, sessionId, email, contextOf(req).client.ip);
        cookie.set(req, res, '', 0);
        res.redirect(303, CONSOLE_URLS.login);
      },
    },
  ];
};
