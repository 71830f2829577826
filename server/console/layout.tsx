// The console's pages: server-rendered by React with no script at all, so visitors of the site
// download nothing of it and every page works without JavaScript. React escapes every value.
// They wear the site's stylesheet, inline and allowed by its hash in the CSP.
import { Fragment, type ReactElement, type ReactNode } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { CONSOLE_URLS, type ConsoleRouteName } from './paths';
import type { Page } from './route';
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

/** The pages the header links to, in its order, by their names in the path table. */
const NAVIGATION: [ConsoleRouteName, string][] = [
  ['signups', 'Signups'],
  ['mail', 'Mail'],
  ['outbox', 'Outbox'],
  ['webhooks', 'Webhooks'],
  ['audit', 'Audit'],
];

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
          <a className="brand" href={CONSOLE_URLS.dashboard}>
            OrgNote console
          </a>
          {session && (
            <nav aria-label="Console">
              {NAVIGATION.map(([name, label], i) => (
                <Fragment key={name}>
                  {i > 0 && ' '}
                  <a href={CONSOLE_URLS[name]}>{label}</a>
                </Fragment>
              ))}
            </nav>
          )}
          <div className="header-actions">
            {session && (
              <>
                <span className="console-account">{session.email}</span>
                <PostForm
                  action={CONSOLE_URLS.logout}
                  csrf={session.csrf}
                  className="console-logout"
                >
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
      <a href={CONSOLE_URLS.signups}>{children}</a>
    </p>
  );
}

/** A page as HTML: its view in the layout, with the operator's account and Log out when given. */
export function pageHtml(
  css: string,
  { title, view }: Pick<Page, 'title' | 'view'>,
  session?: ConsolePageProps['session'],
): string {
  return renderPage(
    <ConsolePage title={title} css={css} session={session}>
      {view}
    </ConsolePage>,
  );
}
