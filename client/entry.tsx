// Browser entry: hydrate the server-rendered route tree (the same table the server used).
import { startTransition } from 'react';
import { hydrateRoot } from 'react-dom/client';
import { createBrowserRouter, matchRoutes } from 'react-router';
// react-router/dom's provider: React Router's own DOM binding (flushSync for updates).
import { RouterProvider } from 'react-router/dom';
import { routes } from './routes';
import { PublicConfigProvider, readEmbeddedPublicConfig } from './public-config';
import './styles/app.css';

/**
 * A lazy route on this page is loaded before the router starts, or it would render nothing where
 * the server rendered the page (React Router's guide, "Lazy routes and server rendering").
 */
async function loadLazyRoutesOfThisPage(): Promise<void> {
  const matches = matchRoutes(routes, window.location) ?? [];
  await Promise.all(
    matches.map(async ({ route }) => {
      if (typeof route.lazy === 'function') Object.assign(route, await route.lazy(), { lazy: undefined });
    }),
  );
}

void loadLazyRoutesOfThisPage().then(() => {
  // Reads window.__staticRouterHydrationData, written by the server's <StaticRouterProvider>.
  const router = createBrowserRouter(routes);
  const publicConfig = readEmbeddedPublicConfig(document);

  // The server document adds this script after its first paint (server/pages/document.tsx).
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
});
