// The console's pages: server-rendered by React with no script at all, so visitors of the site
// download nothing of it and every page works without JavaScript. React escapes every value.
// They wear the site's stylesheet, inline and allowed by its hash in the CSP.
import type { ReactElement, ReactNode } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import type { ConsoleSession } from './session';

/** The whole document as HTML: React writes no doctype of its own. */
export function renderPage(page: ReactElement): string {
  return `<!DOCTYPE html>${renderToStaticMarkup(page)}`;
}

interface PostFormProps {
  action: string;
  /** The session's token: every state-changing form carries it. */
  csrf: string;
  className?: string;
  children: ReactNode;
}

export function PostForm({ action, csrf, className, children }: PostFormProps) {
  return (
    <form method="post" action={action} className={className}>
      <input type="hidden" name="csrf" defaultValue={csrf} />
      {children}
    </form>
  );
}

/** A hidden field of a form, beside its button. */
export function Hidden({ name, value }: { name: string; value: string | number }) {
  return <input type="hidden" name={name} defaultValue={String(value)} />;
}

interface ConsolePageProps {
  title: string;
  /** The site's stylesheet and the console's rules: the CSP allows exactly this text by hash. */
  css: string;
  /** Logged in: the account and a Log out button. */
  session?: Pick<ConsoleSession, 'email' | 'csrf'>;
  children: ReactNode;
}

export function ConsolePage({ title, css, session, children }: ConsolePageProps) {
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>{`${title} · OrgNote console`}</title>
        <style dangerouslySetInnerHTML={{ __html: css }} />
      </head>
      <body>
        <header className="header">
          <a className="brand" href="/admin">
            OrgNote console
          </a>
          {session && (
            <nav aria-label="Console">
              <a href="/admin/signups">Signups</a> <a href="/admin/mail">Mail</a>{' '}
              <a href="/admin/outbox">Outbox</a> <a href="/admin/webhooks">Webhooks</a>{' '}
              <a href="/admin/audit">Audit</a>
            </nav>
          )}
          <div className="header-actions">
            {session && (
              <>
                <span className="console-account">{session.email}</span>
                <PostForm action="/admin/logout" csrf={session.csrf} className="console-logout">
                  <button type="submit" className="button button-secondary">
                    Log out
                  </button>
                </PostForm>
              </>
            )}
          </div>
        </header>
        <main id="main" className="main">
          {children}
        </main>
      </body>
    </html>
  );
}

/** A link back to the list, under an operation's answer. */
export function BackToSignups({ children = 'Back to the signups' }: { children?: string }) {
  return (
    <p>
      <a href="/admin/signups">{children}</a>
    </p>
  );
}
