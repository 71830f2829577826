// Server HTML hydrated in the browser: no mismatch warnings (the console guard fails the test),
// and the 'subscribed' flag, read only after hydration, switches to the joined view.
import { act } from 'react';
import { renderToString } from 'react-dom/server';
import { hydrateRoot } from 'react-dom/client';
import { screen } from '@testing-library/react';
import { appTree } from '../support/render-route';

async function serverRenderThenHydrate(url: string) {
  const container = document.createElement('div');
  document.body.appendChild(container);
  container.innerHTML = renderToString(appTree(url).tree);
  const serverHtml = container.innerHTML;
  await act(async () => {
    hydrateRoot(container, appTree(url).tree);
  });
  return { container, serverHtml };
}

describe('hydration', () => {
  afterEach(() => {
    document.body.innerHTML = '';
    localStorage.clear();
  });

  it.each(['/', '/activate', '/?email=a%40b.co', '/activate?email=a%40b.co'])(
    'hydrates %s without warnings',
    async (url) => {
      const { serverHtml } = await serverRenderThenHydrate(url);
      expect(serverHtml).toMatch(/Join wait list|Enter your activation key/);
    },
  );

  it('renders the form on the server and the joined view once hydrated when the flag exists', async () => {
    localStorage.setItem('subscribed', 'true');
    const { serverHtml } = await serverRenderThenHydrate('/');
    expect(serverHtml).toContain('Join wait list');
    expect(screen.getByRole('status')).toHaveTextContent(
      'You are successfully joined to the wait list.',
    );
    expect(screen.queryByRole('heading', { name: 'Join wait list' })).not.toBeInTheDocument();
  });
});
