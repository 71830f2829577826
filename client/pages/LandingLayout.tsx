// Landing page of docs/product.md §2: a nested layout whose hero holds the child route's form.
import { Link, Outlet } from 'react-router';
import { Hero } from '../components/Hero';
import { AppPreview } from '../components/AppPreview';
import { PlainTextDemo } from '../components/PlainTextDemo';
import { FeaturesGrid } from '../components/FeaturesGrid';
import { languageBase } from '../../shared/i18n/languages';
import { useMessages, usePageLanguage } from '../messages';
import { useSourceQuery } from '../landing-source';

export function LandingLayout() {
  const m = useMessages();
  const { language } = usePageLanguage();
  const source = useSourceQuery();
  return (
    <>
      <Hero>
        <Outlet />
        {/* Beside both forms and their results. /leave is a page load:
            the server alone answers it, so its link names the language's prefix itself. */}
        <p className="form-note">
          <Link to={`/privacy${source}`}>{m.privacy_}</Link>{' '}
          <a href={`${languageBase(language)}/leave`}>{m.leave_}</a>
        </p>
      </Hero>
      <AppPreview />
      <PlainTextDemo />
      <FeaturesGrid />
    </>
  );
}
