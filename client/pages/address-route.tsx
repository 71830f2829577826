// The route glue of the address pages (/confirm, /leave, /privacy/data) and of /privacy's form.
// Only the server answers them: it hands their loaders and actions an AddressPagesContext
// (shared/address-links.ts), and their forms are native, so the browser never runs an action. The
// pages themselves (their text, their views, which operation answers what) are lazy chunks, so this
// glue hands them what they would otherwise import: the context, the loader's and action's data and
// the page's language as props (client/routes.tsx says why).
import type { ReactElement } from 'react';
import {
  data,
  redirectDocument,
  useActionData,
  useLoaderData,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
} from 'react-router';
import type { RouteObject, RouterContextProvider } from 'react-router';
import type { AddressPagesContext } from '../../shared/address-links';
import { languageBase } from '../../shared/i18n/languages';
import type { LazyParts } from '../../shared/messages/types';
import { addressPagesContext } from '../route-context';
import { usePageLanguage } from '../messages';
import { ErrorScreen } from './ErrorScreen';

/** What a loader or action answers, and with which status. */
export interface Answer<T> {
  value: T;
  status: number;
}

/** What a page's view is handed: the answers, its messages, and its language's path prefix. */
export interface AddressViewProps<Loaded, Acted, M> {
  loaded: Loaded;
  acted: Acted | undefined;
  m: M;
  /** '' or '/ru': native forms and links to the server's pages must carry it themselves. */
  base: string;
}

/**
 * A lazy address page: its GET, its form's POST, how their answers look, and its messages in the
 * browser build's language.
 */
export interface AddressPage<Loaded, Acted, M = unknown> {
  load(server: AddressPagesContext, url: URL): Promise<Answer<Loaded>>;
  act(server: AddressPagesContext, url: URL, form: FormData): Promise<Answer<Acted>>;
  View(props: AddressViewProps<Loaded, Acted, M>): ReactElement;
  messages: M;
}

/**
 * The server's context. A client-side navigation has none: a full page load lets the server answer.
 */
function serverContext(
  context: Readonly<RouterContextProvider>,
  request: Request,
): AddressPagesContext {
  const server = context.get(addressPagesContext);
  if (server) return server;
  // On the server that is a wiring mistake, and a redirect there would loop.
  if (typeof document === 'undefined')
    throw new Error('no AddressPagesContext for an address page');
  throw redirectDocument(request.url);
}

/**
 * Every answer carries its status, 200 too: an action's status wins over the loader's that runs
 * after it.
 */
const withStatus = <T,>({ value, status }: Answer<T>) => data(value, { status });

/** The route of the page whose messages are the catalog's `part`. */
export const addressRoute =
  <P extends 'confirm' | 'leave' | 'data'>(part: P) =>
  <Loaded, Acted>(
    page: AddressPage<Loaded, Acted, LazyParts[P]>,
  ): Pick<RouteObject, 'loader' | 'action' | 'Component' | 'ErrorBoundary'> => {
    function AddressRoute() {
      // The server's catalog has every part of the request's language; a browser's has the lazy
      // parts it loaded with their pages, in the page's language.
      const { language, catalog } = usePageLanguage();
      return (
        <page.View
          loaded={useLoaderData() as Loaded}
          acted={useActionData() as Acted | undefined}
          m={(catalog[part] as LazyParts[P] | undefined) ?? page.messages}
          base={languageBase(language)}
        />
      );
    }
    return {
      loader: async ({ context, request }: LoaderFunctionArgs<Readonly<RouterContextProvider>>) =>
        withStatus(await page.load(serverContext(context, request), new URL(request.url))),
      action: async ({ context, request }: ActionFunctionArgs<Readonly<RouterContextProvider>>) => {
        const server = serverContext(context, request);
        return withStatus(await page.act(server, new URL(request.url), await request.formData()));
      },
      Component: AddressRoute,
      // What the server throws (503 while the store is away) shows inside the layout, as 404 does.
      ErrorBoundary: ErrorScreen,
    };
  };

/**
 * /privacy's form, which asks for a data link (shared/data-requests.ts): the page shows the answer
 * in the form's own section.
 */
export async function dataRequestAction({
  context,
  request,
}: ActionFunctionArgs<Readonly<RouterContextProvider>>) {
  const answer = await serverContext(context, request).requestDataLink(await request.formData());
  return withStatus({ value: answer, status: answer.ok ? 200 : answer.status });
}
