// The one route table (docs/product.md §2), imported by the server renderer and the browser entry alike.
import type { RouteObject } from 'react-router';
import { RootLayout } from './pages/RootLayout';
import { LandingLayout } from './pages/LandingLayout';
import { waitlistAction, WaitlistPage } from './pages/WaitlistPage';
import { ActivatePage } from './pages/ActivatePage';
import { PrivacyPage } from './pages/PrivacyPage';
import { ErrorScreen } from './pages/ErrorScreen';

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
          { id: 'waitlist', index: true, element: <WaitlistPage />, action: waitlistAction },
          { id: 'activate', path: 'activate', element: <ActivatePage /> },
        ],
      },
      {
        id: 'privacy',
        path: 'privacy',
        // The words are a chunk of their own, so first-load JS stays in budget (scripts/weights.ts);
        // the server loads them before rendering, the browser before hydrating (client/entry.tsx).
        lazy: async () => {
          const { PRIVACY_NOTICE } = await import('./pages/privacy-notice');
          return { element: <PrivacyPage notice={PRIVACY_NOTICE} /> };
        },
      },
      {
        id: 'not-found',
        path: '*',
        loader: notFound,
        element: null,
        errorElement: <ErrorScreen />,
        // Only shown if a 404 page starts without server hydration data (e.g. a test's memory router).
        HydrateFallback: () => null,
      },
    ],
  },
];
