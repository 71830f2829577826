// The activation form (docs/product.md §4, §5): validation, the new tab, success, blocked tab,
// error view.
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderRoutes } from '../../support/render-route';
import { link } from '../../support/screen';

const email = () => screen.getByLabelText('Email');
const key = () => screen.getByLabelText('Activation key');
const activate = () => screen.getByRole('button', { name: 'Activate' });

let openSpy: jest.SpyInstance;
afterEach(() => openSpy?.mockRestore());

/** window.open cannot open tabs in jsdom; record the call and hand back a fake tab. */
function stubWindowOpen(result: 'tab' | 'blocked' | Error) {
  const tab = { opener: window } as unknown as Window;
  openSpy = jest.spyOn(window, 'open').mockImplementation(() => {
    if (result instanceof Error) throw result;
    return result === 'tab' ? tab : null;
  });
  return tab;
}

async function fillAndSubmit(emailValue = 'zoë+1@example.org', keyValue = 'k&y=1 2') {
  await userEvent.type(email(), emailValue);
  await userEvent.type(key(), keyValue);
  await userEvent.click(activate());
}

describe('activation form', () => {
  it('shows the form, focuses the email and validates on submit', async () => {
    stubWindowOpen('tab');
    renderRoutes('/activate');
    expect(screen.getByRole('heading', { name: 'Enter your activation key' })).toBeInTheDocument();
    expect(email()).toHaveFocus();
    await userEvent.click(activate());
    expect(screen.getByText('Email address is required')).toBeInTheDocument();
    expect(screen.getByText('Required')).toBeInTheDocument();
    expect(key()).toHaveAttribute('aria-invalid', 'true');
    expect(window.open).not.toHaveBeenCalled();
  });

  it('opens /auth/activate on the web app in a new tab with email, token and key, then shows success', async () => {
    const tab = stubWindowOpen('tab');
    renderRoutes('/activate', { config: { webAppUrl: 'https://app.example.com' } });
    await fillAndSubmit();
    expect(window.open).toHaveBeenCalledTimes(1);
    const [url, target] = openSpy.mock.calls[0];
    expect(target).toBe('_blank');
    const opened = new URL(url);
    expect(opened.origin + opened.pathname).toBe('https://app.example.com/auth/activate');
    expect(Object.fromEntries(opened.searchParams)).toEqual({
      email: 'zoë+1@example.org',
      token: 'k&y=1 2',
      key: 'k&y=1 2',
    });
    expect(tab.opener).toBeNull();
    // focus moves in an effect after the view renders
    const congratulations = await screen.findByRole('heading', { name: 'Congratulations' });
    await waitFor(() => expect(congratulations).toHaveFocus());
    expect(
      screen.getByText('You are successfully activated your free subscription'),
    ).toBeInTheDocument();
  });

  it('tells the visitor how to continue when the new tab is blocked', async () => {
    stubWindowOpen('blocked');
    renderRoutes('/activate');
    await fillAndSubmit('a@b.co', 'KEY');
    expect(screen.getByText(/blocked the new tab/)).toBeInTheDocument();
    expect(link('Open the activation page')).toHaveAttribute(
      'href',
      'https://org-note.com/auth/activate?email=a%40b.co&token=KEY&key=KEY',
    );
  });

  it('shows an error view with the message; the back arrow returns to the form with focus', async () => {
    stubWindowOpen(new Error('Blocked by a sandbox'));
    renderRoutes('/activate');
    await fillAndSubmit('a@b.co', 'KEY');
    await waitFor(() => expect(screen.getByRole('heading', { name: 'Error' })).toHaveFocus());
    expect(screen.getByRole('alert')).toHaveTextContent('Blocked by a sandbox');

    await userEvent.click(screen.getByRole('button', { name: 'Back to the form' }));
    expect(screen.queryByRole('heading', { name: 'Error' })).not.toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Enter your activation key' })).toBeInTheDocument();
    await waitFor(() => expect(email()).toHaveFocus());
  });

  it('prefills the email from ?email= and focuses the key', () => {
    renderRoutes('/activate?email=a%40b.co');
    expect(email()).toHaveValue('a@b.co');
    expect(key()).toHaveFocus();
  });

  it('works as a plain form without JavaScript: POST to our /activate/open, fields email and token, new tab', () => {
    renderRoutes('/activate', { config: { webAppUrl: 'https://app.example.com' } });
    const form = screen.getByRole('form', { name: 'Enter your activation key' });
    expect(form).toHaveAttribute('action', '/activate/open');
    expect(form).toHaveAttribute('method', 'post');
    expect(form).toHaveAttribute('target', '_blank');
    expect(email()).toHaveAttribute('name', 'email');
    expect(key()).toHaveAttribute('name', 'token');
  });
});
