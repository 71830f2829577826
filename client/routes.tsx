// The one route table (docs/product.md §2), imported by the server renderer and the browser entry
// alike.
//
// Pages that visitors of / do not need (/activate, /privacy, /confirm, /leave) are lazy: chunks of
// their own, loaded by the server before rendering and by the browser before hydrating
// (client/entry.tsx), so first-load JS stays in budget (scripts/weights.ts). A lazy page imports
// nothing of the first-load bundle but React's JSX runtime, and gets the rest (hooks, config) as
// props from here or from its route glue: importing React, React Router or a component would
// move them into a shared chunk, about 1.4 kB more for every visitor. Its JSX runtime then shares
// the bundler's helper chunk, which every page loads.
import type { RouteObject } from 'react-router';
import { RootLayout } from './pages/RootLayout';
import { LandingLayout } from './pages/LandingLayout';
import { waitlistAction, WaitlistPage } from './pages/WaitlistPage';
import { activateRoute } from './pages/activate-route';
import { ErrorScreen } from './pages/ErrorScreen';
import { addressRoute } from './pages/address-route';
import { usePublicConfig } from './public-config';
import { usePageLanguage } from './messages';
import { languageBase } from '../shared/i18n/languages';

/** Unknown paths are a real 404 (status on the server, error screen inside the layout). */
function notFound(): never {
  throw new Response(null, { status: 404, statusText: 'Not Found' });
}

export const routes: RouteObject[] = [
  {
    id: 'root',
    path: '/',
    element: <RootLayout />,
    // Last resort when the layout itself fails: the screen stands alone.
    errorElement: <ErrorScreen />,
    children: [
      {
        id: 'landing',
        element: <LandingLayout />,
        children: [
          // Its loader is the server's only (server/pages/render.tsx withServerLoaders).
          { id: 'waitlist', index: true, element: <WaitlistPage />, action: waitlistAction },
          {
            id: 'activate',
            path: 'activate',
            lazy: () => import('./pages/ActivatePage').then(activateRoute),
          },
        ],
      },
      {
        id: 'privacy',
        path: 'privacy',
        lazy: async () => {
          const { PrivacyPage, messages } = await import('./pages/PrivacyPage');
          return {
            Component: function Privacy() {
              const { privacyContact, addressRecipients, backupRetentionDays } = usePublicConfig();
              // On the server the catalog holds the request's language; in a browser, the chunk's.
              const { language, catalog } = usePageLanguage();
              return (
                <PrivacyPage
                  {...{ privacyContact, addressRecipients, backupRetentionDays, language }}
                  m={catalog.privacy ?? messages}
                  base={languageBase(language)}
                />
              );
            },
          };
        },
      },
      // The address pages: only the server answers them (client/pages/address-route.tsx).
      {
        id: 'confirm',
        path: 'confirm',
        lazy: () => import('./pages/ConfirmPage').then(addressRoute('confirm')),
      },
      {
        id: 'leave',
        path: 'leave',
        lazy: () => import('./pages/LeavePage').then(addressRoute('leave')),
      },
      {
        id: 'not-found',
        path: '*',
        loader: notFound,
        element: null,
        errorElement: <ErrorScreen />,
        // Only shown if a 404 page starts without server hydration data (e.g. a test's memory
        // router).
        HydrateFallback: () => null,
      },
    ],
  },
];
