// Root layout of docs/product.md §2: every page sits between the header and the footer, over the
// starfall.
import { Outlet, type LoaderFunctionArgs, type RouterContextProvider } from 'react-router';
import type { SignupSource } from '../../shared/sources';
import { pageSourceContext } from '../route-context';
import { Header } from '../components/Header';
import { Footer } from '../components/Footer';
import { Starfall } from '../components/Starfall';

/**
 * The root route's loader, the server's only, and only for a page of one request
 * (server/pages/render.tsx): where its visitor came from, which its links and the plain form carry
 * on (client/landing-source.ts).
 */
export function pageSourceLoader({
  context,
}: LoaderFunctionArgs<Readonly<RouterContextProvider>>): SignupSource {
  return context.get(pageSourceContext) ?? {};
}

export function RootLayout() {
  return (
    <>
      <Starfall />
      <Header />
      <main id="main" className="main">
        <Outlet />
      </main>
      <Footer />
    </>
  );
}
