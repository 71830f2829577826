// An address page the way the server answers it: React Router's static handler runs the
// route's loader (and, for a POST, its action) with the context the server hands them, and the page
// is rendered from the result. The operations in that context give fixed answers: they are the
// route's input, as the server builds them from a request, and they record what was asked.
import { render, screen } from '@testing-library/react';
import {
  createStaticHandler,
  createStaticRouter,
  RouterContextProvider,
  StaticRouterProvider,
} from 'react-router';
import { PublicConfigProvider } from '../../../client/public-config';
import { MessagesProvider } from '../../../client/messages';
import { CATALOGS } from '../../../shared/messages';
import { languageBase, type Language } from '../../../shared/i18n/languages';
import { addressPagesContext } from '../../../client/route-context';
import { routes } from '../../../client/routes';
import type {
  AddressPagesContext,
  LeaveLinkRequest,
  LinkCheck,
  LinkRefusal,
  LinkUse,
} from '../../../shared/address-links';
import { DEFAULT_PUBLIC_CONFIG } from '../../../shared/public-config';
import { link, pageHeading } from '../../support/screen';

interface Answers {
  check?: LinkCheck;
  use?: LinkUse;
  request?: LeaveLinkRequest;
  /** Why a data link's POST downloaded nothing. */
  dataRefusal?: LinkRefusal;
}

/** A context answering as told; `asked` lists the operations called, in order. */
export function serverContext({
  check = { ok: true, subscriptionActive: false },
  use = { ok: true },
  request = { ok: true },
  dataRefusal = 'spent',
}: Answers = {}) {
  const asked: string[] = [];
  const context: AddressPagesContext = {
    checkLink: async (purpose) => (asked.push(`checkLink ${purpose}`), check),
    confirm: async () => (asked.push('confirm'), use),
    leave: async () => (asked.push('leave'), use),
    requestLeaveLink: async () => (asked.push('requestLeaveLink'), request),
    requestDataLink: async () => (asked.push('requestDataLink'), request),
    dataLinkRefusal: () => (asked.push('dataLinkRefusal'), dataRefusal),
  };
  return { context, asked };
}

/** Renders `url` as the server would for `method`, and returns the page's HTTP status. */
export async function serve(
  url: string,
  context: AddressPagesContext,
  method: 'GET' | 'POST' = 'GET',
  language: Language = 'en',
): Promise<number> {
  const handler = createStaticHandler(routes, { basename: languageBase(language) || '/' });
  const requestContext = new RouterContextProvider();
  requestContext.set(addressPagesContext, context);
  // A POST carries a form, as a browser's does; the operations above answer whatever it holds.
  const body = method === 'POST' ? new URLSearchParams() : undefined;
  const request = new Request(`http://site.test${url}`, { method, body });
  const result = await handler.query(request, { requestContext });
  if (result instanceof Response)
    throw new Error(`${method} ${url} answered a bare ${result.status}, not a page`);
  render(
    <PublicConfigProvider value={DEFAULT_PUBLIC_CONFIG}>
      <MessagesProvider value={{ language, catalog: CATALOGS[language] }}>
        <StaticRouterProvider
          router={createStaticRouter(handler.dataRoutes, result)}
          context={result}
          hydrate={false}
        />
      </MessagesProvider>
    </PublicConfigProvider>,
  );
  return result.statusCode;
}

/** Expects the page of a link that does not work: its heading, why, and the way back. */
export function expectRefusedLink(message: RegExp): void {
  expect(pageHeading('This link does not work')).toBeInTheDocument();
  expect(screen.getByText(message)).toBeInTheDocument();
  expect(link('Back to the waitlist')).toHaveAttribute('href', '/');
}
