// Renders the real route table (or one element) in a memory router, as the browser would, with
// the public config and an API client pointed wherever the test says (a real backend on 127.0.0.1).
import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { createMemoryRouter, RouterProvider, type RouteObject } from 'react-router';
import { routes } from '../../client/routes';
import * as ActivatePageModule from '../../client/pages/ActivatePage';
import { activateRoute } from '../../client/pages/activate-route';
import { ApiClientProvider } from '../../client/api-client';
import { PublicConfigProvider } from '../../client/public-config';
import { MessagesProvider } from '../../client/messages';
import { CATALOGS } from '../../shared/messages';
import { languageBase, type Language } from '../../shared/i18n/languages';
import { createApiClient, type ApiClient } from '../../shared/api';
import { DEFAULT_PUBLIC_CONFIG, type PublicConfig } from '../../shared/public-config';

interface RenderOptions {
  /** Over the defaults: a test names only the settings it is about. */
  config?: Partial<PublicConfig>;
  api?: ApiClient;
  routeTable?: RouteObject[];
  /** The page's language: English unless said; Russian routes under /ru, as the site does. */
  language?: Language;
}

/**
 * The route table with '/activate' resolved, as the browser has it once its lazy chunk is loaded
 * (client/hydrate.tsx loads a lazy route of the first page before hydrating): tests of the form
 * render it at once. The other lazy pages load when navigated to, as in the browser.
 */
const RESOLVED_ROUTES = (function resolve(table: RouteObject[]): RouteObject[] {
  return table.map((route) =>
    route.id === 'activate'
      ? { ...route, lazy: undefined, ...activateRoute(ActivatePageModule) }
      : route.children
        ? { ...route, children: resolve(route.children) }
        : route,
  );
})(routes);

export function appTree(url: string, options: RenderOptions = {}) {
  const language = options.language ?? 'en';
  const router = createMemoryRouter(options.routeTable ?? RESOLVED_ROUTES, {
    initialEntries: [url],
    basename: languageBase(language) || '/',
  });
  const tree = (
    <PublicConfigProvider value={{ ...DEFAULT_PUBLIC_CONFIG, ...options.config }}>
      <MessagesProvider value={{ language, catalog: CATALOGS[language] }}>
        <ApiClientProvider
          value={options.api ?? createApiClient({ baseUrl: 'http://127.0.0.1:9' })}
        >
          <RouterProvider router={router} />
        </ApiClientProvider>
      </MessagesProvider>
    </PublicConfigProvider>
  );
  return { router, tree };
}

export function renderRoutes(url: string, options: RenderOptions = {}) {
  const { router, tree } = appTree(url, options);
  return { router, ...render(tree) };
}

export function renderInRouter(element: ReactElement, url = '/') {
  return renderRoutes(url, { routeTable: [{ path: '*', element }] });
}
