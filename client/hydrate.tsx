// Hydrates the server-rendered route tree (the same table the server used), the entry's last step
// (client/entry.tsx). React, React DOM and React Router come through the boot steps, which
// evaluate each in a task of its own before this module's own imports (the routes) run.
import { startTransition } from './boot/react';
import { hydrateRoot } from './boot/react-dom';
// RouterProvider is react-router/dom's: React Router's own DOM binding (flushSync for updates).
import { createBrowserRouter, matchRoutes, RouterProvider } from './boot/router';
import { routes } from './routes';
import { PublicConfigProvider, readEmbeddedPublicConfig } from './public-config';
import { MessagesProvider } from './messages';
import { keepLandingSource } from './landing-source';
import { languageBase, type Language } from '../shared/i18n/languages';
import type { SiteMessages } from '../shared/messages/types';
import type { SignupSource } from '../shared/sources';

/**
 * A lazy route on this page is loaded before the router starts, or it would render nothing where
 * the server rendered the page (React Router's guide, "Lazy routes and server rendering").
 */
async function loadLazyRoutesOfThisPage(basename: string): Promise<void> {
  const matches = matchRoutes(routes, window.location, basename) ?? [];
  await Promise.all(
    matches.map(async ({ route }) => {
      if (typeof route.lazy === 'function')
        Object.assign(route, await route.lazy(), { lazy: undefined });
    }),
  );
}

/** Hydrates the page in its language (the document's, which the server wrote, as the entry's). */
export async function hydrate(site: SiteMessages): Promise<void> {
  const language = document.documentElement.lang as Language;
  // The router works under the language's prefix: <Link to="/privacy"> is /ru/privacy in Russian.
  const basename = languageBase(language) || '/';
  await loadLazyRoutesOfThisPage(basename);
  // Reads window.__staticRouterHydrationData, written by the server's <StaticRouterProvider>.
  const router = createBrowserRouter(routes, { basename });
  keepLandingSource(router.state.loaderData.root as SignupSource | undefined);
  const publicConfig = readEmbeddedPublicConfig(document);
  // As a transition, hydration yields to the browser every few milliseconds instead of holding
  // the main thread in one long task (the page is already visible and usable as server HTML).
  startTransition(() => {
    hydrateRoot(
      document.getElementById('root')!,
      <PublicConfigProvider value={publicConfig}>
        <MessagesProvider value={{ language, catalog: { site } }}>
          <RouterProvider router={router} />
        </MessagesProvider>
      </PublicConfigProvider>,
    );
  });
}
