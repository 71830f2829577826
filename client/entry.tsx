// Browser entry: hydrate the server-rendered route tree (the same table the server used).
import { hydrateRoot } from 'react-dom/client';
import { createBrowserRouter, RouterProvider } from 'react-router-dom';
import { routes } from './routes';
import { PublicConfigProvider, readEmbeddedPublicConfig } from './public-config';
import './styles/app.css';

// Reads window.__staticRouterHydrationData, written by the server's <StaticRouterProvider>.
const router = createBrowserRouter(routes);
const publicConfig = readEmbeddedPublicConfig(document);

hydrateRoot(
  document.getElementById('root')!,
  <PublicConfigProvider value={publicConfig}>
    <RouterProvider router={router} />
  </PublicConfigProvider>,
);
