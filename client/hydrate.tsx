// Hydrates the server-rendered route tree (the same table the server used), the entry's last step
// (client/entry.tsx). React, React DOM and React Router come through the boot steps, which
// evaluate each in a task of its own before this module's own imports (the routes) run.
import { startTransition } from './boot/react';
import { hydrateRoot } from './boot/react-dom';
// RouterProvider is react-router/dom's: React Router's own DOM binding (flushSync for updates).
import { createBrowserRouter, matchRoutes, RouterProvider } from './boot/router';
import { routes } from './routes';
import { PublicConfigProvider, readEmbeddedPublicConfig } from './public-config';

/**
 * A lazy route on this page is loaded before the router starts, or it would render nothing where
 * the server rendered the page (React Router's guide, "Lazy routes and server rendering").
 */
async function loadLazyRoutesOfThisPage(): Promise<void> {
  const matches = matchRoutes(routes, window.location) ?? [];
  await Promise.all(
    matches.map(async ({ route }) => {
      if (typeof route.lazy === 'function')
        Object.assign(route, await route.lazy(), { lazy: undefined });
    }),
  );
}

export async function hydrate(): Promise<void> {
  await loadLazyRoutesOfThisPage();
  // Reads window.__staticRouterHydrationData, written by the server's <StaticRouterProvider>.
  const router = createBrowserRouter(routes);
  const publicConfig = readEmbeddedPublicConfig(document);
  // As a transition, hydration yields to the browser every few milliseconds instead of holding
  // the main thread in one long task (the page is already visible and usable as server HTML).
  startTransition(() => {
    hydrateRoot(
      document.getElementById('root')!,
      <PublicConfigProvider value={publicConfig}>
        <RouterProvider router={router} />
      </PublicConfigProvider>,
    );
  });
}
