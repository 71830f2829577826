// The console's login form: address, password, and the code when the account has two-factor.
import { ConsolePage } from './layout';

interface LoginPageProps {
  css: string;
  /** What was typed, shown again after a refusal. */
  email?: string;
  error?: string;
}

export function LoginPage({ css, email = '', error }: LoginPageProps) {
  return (
    <ConsolePage title="Log in" css={css}>
      <section className="form-card address-page" aria-labelledby="login-title">
        <h1 id="login-title" className="form-title">
          Log in
        </h1>
        {error && (
          <p className="field-message" role="alert" id="login-error">
            {error}
          </p>
        )}
        <form method="post" action="/admin/login">
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
    </ConsolePage>
  );
}
