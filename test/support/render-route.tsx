// Renders the real route table (or one element) in a memory router, as the browser would, with
// the public config and an API client pointed wherever the test says (a real backend on 127.0.0.1).
import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { createMemoryRouter, RouterProvider, type RouteObject } from 'react-router';
import { routes } from '../../client/routes';
import { ApiClientProvider } from '../../client/api-client';
import { PublicConfigProvider } from '../../client/public-config';
import { createApiClient, type ApiClient } from '../../shared/api';
import { DEFAULT_PUBLIC_CONFIG, type PublicConfig } from '../../shared/public-config';

interface RenderOptions {
  /** Over the defaults: a test names only the settings it is about. */
  config?: Partial<PublicConfig>;
  api?: ApiClient;
  routeTable?: RouteObject[];
}

export function appTree(url: string, options: RenderOptions = {}) {
  const router = createMemoryRouter(options.routeTable ?? routes, { initialEntries: [url] });
  const tree = (
    <PublicConfigProvider value={{ ...DEFAULT_PUBLIC_CONFIG, ...options.config }}>
      <ApiClientProvider value={options.api ?? createApiClient({ baseUrl: 'http://127.0.0.1:9' })}>
        <RouterProvider router={router} />
      </ApiClientProvider>
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
