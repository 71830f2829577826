// Fallback screen of docs/product.md §2/§8: 'Unexpected Application Error!' with the status and
// text, or the message.
import { isRouteErrorResponse, useRouteError } from 'react-router';

function describe(error: unknown): string {
  if (isRouteErrorResponse(error)) return `${error.status} ${error.statusText}`.trim();
  if (error instanceof Error) return error.message;
  return typeof error === 'string' && error !== '' ? error : 'Unknown error';
}

export function ErrorScreen() {
  const error = useRouteError();
  return (
    <section className="error-screen" aria-labelledby="error-screen-title">
      <title>Unexpected Application Error! · OrgNote</title>
      <h2 id="error-screen-title">Unexpected Application Error!</h2>
      <h3>{describe(error)}</h3>
    </section>
  );
}
