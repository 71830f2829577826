// Root layout of docs/product.md §2: every page sits between the header and the footer, over the
// starfall.
import { Outlet } from 'react-router';
import { Header } from '../components/Header';
import { Footer } from '../components/Footer';
import { Starfall } from '../components/Starfall';

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
