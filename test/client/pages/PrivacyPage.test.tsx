// The privacy notice through the real route table: its link beside both forms,
// and the page it leads to, with the contact from the public config.
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderRoutes } from '../../support/render-route';
import { link } from '../../support/screen';

describe('privacy notice', () => {
  beforeEach(() => localStorage.clear());

  it.each(['/', '/activate'])('has a Privacy link beside the form on %s', (url) => {
    renderRoutes(url);
    const hero = screen.getByRole('region', { name: 'From an org-mode lover to org-mode lovers' });
    expect(within(hero).getByRole('link', { name: 'Privacy' })).toHaveAttribute('href', '/privacy');
  });

  // A page /leave, linked from the site.
  it.each(['/', '/activate'])('has a link to leave the waitlist beside the form on %s', (url) => {
    renderRoutes(url);
    const hero = screen.getByRole('region', { name: 'From an org-mode lover to org-mode lovers' });
    expect(within(hero).getByRole('link', { name: 'Leave the waitlist' })).toHaveAttribute(
      'href',
      '/leave',
    );
  });

  it('keeps the link beside the joined view', () => {
    localStorage.setItem('subscribed', 'true');
    renderRoutes('/');
    expect(link('Privacy')).toHaveAttribute('href', '/privacy');
  });

  it('leads to the notice, which names the contact and links to /leave', async () => {
    renderRoutes('/activate', {
      config: { privacyContact: 'Privacy desk <privacy@orgnote.example>' },
    });
    await userEvent.click(link('Privacy'));
    expect(await screen.findByRole('heading', { level: 1, name: 'Privacy' })).toBeInTheDocument();
    expect(link('privacy@orgnote.example')).toHaveAttribute(
      'href',
      'mailto:privacy@orgnote.example',
    );
    expect(link('Leave the waitlist')).toHaveAttribute('href', '/leave');
    expect(screen.getByText(/About me \(or github profile\)/)).toBeInTheDocument();
  });
});
