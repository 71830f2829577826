// Fallback screen of docs/product.md §2/§8: 'Unexpected Application Error!' with the status and
// text, or the message. The status's text is the page's language's: a Response's statusText is
// English, and so is an error's message, which another language shows in its own words instead.
import { isRouteErrorResponse, useRouteError } from 'react-router';
import { useMessages } from '../messages';
import type { SiteMessages } from '../../shared/messages/types';

function describe(error: unknown, m: SiteMessages): string {
  if (isRouteErrorResponse(error)) return m.status_(error.status, error.statusText);
  if (error instanceof Error) return m.thrown_(error.message);
  return typeof error === 'string' && error !== '' ? m.thrown_(error) : m.unknownError_;
}

export function ErrorScreen() {
  const error = useRouteError();
  const m = useMessages();
  return (
    <section className="error-screen" aria-labelledby="error-screen-title">
      <title>{m.errorTitle_}</title>
      {/* The page's one h1 (a 404 has no hero), sized as the h2 it was. */}
      <h1 id="error-screen-title">{m.errorHeading_}</h1>
      <h2>{describe(error, m)}</h2>
    </section>
  );
}
