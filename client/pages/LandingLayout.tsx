// Landing page of docs/product.md §2: a nested layout whose hero holds the child route's form.
import { Link, Outlet } from 'react-router';
import { Hero } from '../components/Hero';
import { AppPreview } from '../components/AppPreview';
import { PlainTextDemo } from '../components/PlainTextDemo';
import { FeaturesGrid } from '../components/FeaturesGrid';

export function LandingLayout() {
  return (
    <>
      <Hero>
        <Outlet />
        {/* Beside both forms and their results. /leave is a page load:
            the server alone answers it. */}
        <p className="form-note">
          <Link to="/privacy">Privacy</Link> <a href="/leave">Leave the waitlist</a>
        </p>
      </Hero>
      <AppPreview />
      <PlainTextDemo />
      <FeaturesGrid />
    </>
  );
}
