// '/privacy' in the browser names the hosts webhooks send addresses to, from the public config the
// server embedded: the server's HTML hydrates without a mismatch (the console guard fails the test
// on one), and a visitor who navigates to the page reads the same sentence.
import { act } from 'react';
import { hydrateRoot } from 'react-dom/client';
import { renderToString } from 'react-dom/server';
import { matchRoutes } from 'react-router';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { routes } from '../../../client/routes';
import { readEmbeddedPublicConfig } from '../../../client/public-config';
import { DEFAULT_PUBLIC_CONFIG } from '../../../shared/public-config';
import { appTree, renderRoutes } from '../../support/render-route';
import { link } from '../../support/screen';

const HOSTS = ['hooks.example.com', 'crm.example.org'];
const NAMING_HOSTS =
  'The people who run this site, and the services they send your e-mail address to when you ' +
  'join the waitlist or your place on it changes: hooks.example.com and crm.example.org. It is ' +
  'not given or sold to anyone else, and the site has no tracking, analytics or advertising.';

/** The paragraph under "Who sees it". */
function whoSeesIt(): string | null {
  const heading = screen.getByRole('heading', { level: 2, name: 'Who sees it' });
  return heading.nextElementSibling?.textContent ?? null;
}

afterEach(() => {
  document.body.innerHTML = '';
});

it('hydrates the server’s page with the hosts from the embedded public config', async () => {
  // The browser loads the page's lazy route before hydrating (client/hydrate.tsx).
  for (const { route } of matchRoutes(routes, '/privacy') ?? [])
    if (typeof route.lazy === 'function')
      Object.assign(route, await route.lazy(), { lazy: undefined });

  const container = document.createElement('div');
  document.body.appendChild(container);
  const served = { ...DEFAULT_PUBLIC_CONFIG, addressRecipients: HOSTS };
  container.innerHTML = renderToString(appTree('/privacy', { config: served }).tree);
  expect(whoSeesIt()).toBe(NAMING_HOSTS);

  // What the server embeds beside the root, read back as the browser entry does.
  const embedded = document.createElement('script');
  embedded.id = 'public-config';
  embedded.type = 'application/json';
  embedded.textContent = JSON.stringify(served);
  document.body.appendChild(embedded);
  const config = readEmbeddedPublicConfig(document);
  await act(async () => {
    hydrateRoot(container, appTree('/privacy', { config }).tree);
  });
  expect(whoSeesIt()).toBe(NAMING_HOSTS);
});

it('reads the same sentence after following the Privacy link', async () => {
  renderRoutes('/activate', { config: { addressRecipients: HOSTS } });
  await userEvent.click(link('Privacy'));
  await screen.findByRole('heading', { level: 1, name: 'Privacy' });
  expect(whoSeesIt()).toBe(NAMING_HOSTS);
});

it('says only the operators see the data while no host receives addresses', async () => {
  renderRoutes('/activate');
  await userEvent.click(link('Privacy'));
  await screen.findByRole('heading', { level: 1, name: 'Privacy' });
  expect(whoSeesIt()).toBe(
    'Only the people who run this site. It is not given or sold to anyone else, and the site ' +
      'has no tracking, analytics or advertising.',
  );
});
