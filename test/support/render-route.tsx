// Renders the real route table (or one element) in a memory router, as the browser would.
import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { createMemoryRouter, RouterProvider, type RouteObject } from 'react-router-dom';
import { routes } from '../../client/routes';
import { PublicConfigProvider } from '../../client/public-config';
import { DEFAULT_PUBLIC_CONFIG, type PublicConfig } from '../../shared/public-config';

export function renderRoutes(url: string, options: { config?: PublicConfig; routeTable?: RouteObject[] } = {}) {
  const router = createMemoryRouter(options.routeTable ?? routes, { initialEntries: [url] });
  const view = render(
    <PublicConfigProvider value={options.config ?? DEFAULT_PUBLIC_CONFIG}>
      <RouterProvider router={router} />
    </PublicConfigProvider>,
  );
  return { router, ...view };
}

export function renderInRouter(element: ReactElement, url = '/') {
  return renderRoutes(url, { routeTable: [{ path: '*', element }] });
}
