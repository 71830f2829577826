import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MenuDropdown } from '../../../client/components/MenuDropdown';
import { renderInRouter, renderRoutes } from '../../support/render-route';

describe('MenuDropdown', () => {
  it('opens on the menu button and lists the navigation items', async () => {
    renderInRouter(<MenuDropdown />);
    const button = screen.getByRole('button', { name: 'Menu' });
    expect(button).toHaveAttribute('aria-expanded', 'false');
    expect(screen.queryByRole('link', { name: 'Waitlis' })).not.toBeInTheDocument();

    await userEvent.click(button);
    expect(button).toHaveAttribute('aria-expanded', 'true');
    expect(screen.getByRole('link', { name: 'Waitlis' })).toHaveAttribute('href', '/');
    expect(screen.getByRole('link', { name: 'Activate' })).toHaveAttribute('href', '/activate');
  });

  it('closes when an item is clicked, and the route changes', async () => {
    const { router } = renderRoutes('/');
    await userEvent.click(screen.getByRole('button', { name: 'Menu' }));
    await userEvent.click(screen.getByRole('link', { name: 'Activate' }));
    expect(router.state.location.pathname).toBe('/activate');
    expect(screen.getByRole('button', { name: 'Menu' })).toHaveAttribute('aria-expanded', 'false');
    expect(screen.queryByRole('link', { name: 'Activate' })).not.toBeInTheDocument();
  });

  it('closes on Escape and gives focus back to the button', async () => {
    renderInRouter(<MenuDropdown />);
    const button = screen.getByRole('button', { name: 'Menu' });
    await userEvent.click(button);
    await userEvent.keyboard('{Escape}');
    expect(button).toHaveAttribute('aria-expanded', 'false');
    expect(button).toHaveFocus();
  });

  it('closes on a click outside', async () => {
    renderInRouter(
      <div>
        <MenuDropdown />
        <p>elsewhere</p>
      </div>,
    );
    await userEvent.click(screen.getByRole('button', { name: 'Menu' }));
    await userEvent.click(screen.getByText('elsewhere'));
    expect(screen.getByRole('button', { name: 'Menu' })).toHaveAttribute('aria-expanded', 'false');
  });

  it('marks itself script-driven only after mounting', async () => {
    const { container } = renderInRouter(<MenuDropdown />);
    await waitFor(() => expect(container.querySelector('.menu')).toHaveAttribute('data-enhanced', 'true'));
    await act(async () => {});
  });
});
