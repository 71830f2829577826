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

describe('activation form in Russian, at /ru/activate', () => {
  const ru = { language: 'ru' } as const;
  const ruEmail = () => screen.getByLabelText('Электронная почта');
  const ruKey = () => screen.getByLabelText('Ключ активации');
  const ruActivate = () => screen.getByRole('button', { name: 'Активировать' });

  async function fillAndSubmitRu(emailValue = 'a@b.co', keyValue = 'KEY') {
    await userEvent.type(ruEmail(), emailValue);
    await userEvent.type(ruKey(), keyValue);
    await userEvent.click(ruActivate());
  }

  it('titles the page, heads the form and says what is missing in Russian', async () => {
    stubWindowOpen('tab');
    renderRoutes('/ru/activate', ru);
    expect(document.title).toBe('Активация подписки · OrgNote');
    expect(screen.getByRole('heading', { name: 'Введите ключ активации' })).toBeInTheDocument();
    await userEvent.click(ruActivate());
    expect(screen.getByText('Укажите адрес электронной почты')).toBeInTheDocument();
    expect(screen.getByText('Укажите ключ активации')).toBeInTheDocument();
    expect(ruKey()).toHaveAttribute('aria-invalid', 'true');
    // A pattern mismatch is marked by style alone, as in English (product §5).
    await userEvent.type(ruEmail(), 'not an address');
    expect(ruEmail()).toHaveAttribute('aria-invalid', 'true');
    expect(screen.queryByText('Укажите адрес электронной почты')).not.toBeInTheDocument();
    expect(window.open).not.toHaveBeenCalled();
  });

  it('congratulates on the activation', async () => {
    stubWindowOpen('tab');
    renderRoutes('/ru/activate', ru);
    await fillAndSubmitRu();
    expect(await screen.findByRole('heading', { name: 'Поздравляем!' })).toBeInTheDocument();
    expect(screen.getByText('Ваша бесплатная подписка активирована.')).toBeInTheDocument();
  });

  it('says how to go on when the new tab is blocked', async () => {
    stubWindowOpen('blocked');
    renderRoutes('/ru/activate', ru);
    await fillAndSubmitRu();
    expect(screen.getByRole('heading', { name: 'Остался один шаг' })).toBeInTheDocument();
    expect(
      screen.getByText('Браузер заблокировал новую вкладку. Откройте страницу активации сами:'),
    ).toBeInTheDocument();
    expect(link('Открыть страницу активации')).toHaveAttribute(
      'href',
      'https://org-note.com/auth/activate?email=a%40b.co&token=KEY&key=KEY',
    );
  });

  it('shows a sentence of its own, not the engine’s English, when the tab cannot open', async () => {
    stubWindowOpen(new Error('Blocked by a sandbox'));
    renderRoutes('/ru/activate', ru);
    await fillAndSubmitRu();
    expect(await screen.findByRole('heading', { name: 'Ошибка' })).toBeInTheDocument();
    expect(screen.getByRole('alert')).toHaveTextContent(
      'Не удалось открыть страницу активации. Попробуйте ещё раз.',
    );
  });

  it('posts without JavaScript to /ru/activate/open', () => {
    renderRoutes('/ru/activate', ru);
    const form = screen.getByRole('form', { name: 'Введите ключ активации' });
    expect(form).toHaveAttribute('action', '/ru/activate/open');
  });
});
