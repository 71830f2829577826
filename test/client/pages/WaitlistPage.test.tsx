// The waitlist form (docs/product.md §3–§5, §7) in jsdom, posting to a real multer backend on
// 127.0.0.1.
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createApiClient } from '../../../shared/api';
import { closedPort, backendForEachTest } from '../../support/backend';
import { renderRoutes } from '../../support/render-route';
import { link } from '../../support/screen';

const JOINED =
  'You are successfully joined to the wait list. Want to get your invitation faster? Join patreon';

const backend = backendForEachTest();
beforeEach(() => {
  localStorage.clear();
  backend.respondWith((req, res) => res.status(201).json({ email: 'ok' }));
});

function renderWaitlist(url = '/', api = createApiClient({ baseUrl: backend.url })) {
  return renderRoutes(url, { api });
}

const email = () => screen.getByLabelText('Email');
const about = () => screen.getByLabelText('About me (or github profile)');
const join = () => screen.getByRole('button', { name: 'Join' });

describe('waitlist form', () => {
  it('shows the form with its two fields and focuses the email', () => {
    renderWaitlist();
    expect(screen.getByRole('heading', { name: 'Join wait list' })).toBeInTheDocument();
    expect(email()).toHaveFocus();
    expect(about().tagName).toBe('TEXTAREA');
  });

  it('validates on submit with the product §5 messages and sends nothing', async () => {
    renderWaitlist();
    await userEvent.click(join());
    expect(screen.getByText('Email address is required')).toBeInTheDocument();
    expect(screen.getByText('Required')).toBeInTheDocument();
    expect(email()).toHaveAttribute('aria-invalid', 'true');
    expect(email()).toHaveClass('field-input-error');
    expect(email()).toHaveAccessibleDescription('Email address is required');
    expect(email()).toHaveFocus();
    expect(backend.received).toHaveLength(0);
  });

  it('marks a malformed email with the error style but no message', async () => {
    renderWaitlist();
    await userEvent.type(email(), 'not an email');
    await userEvent.type(about(), 'me');
    await userEvent.click(join());
    expect(email()).toHaveAttribute('aria-invalid', 'true');
    expect(email()).toHaveClass('field-input-error');
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(backend.received).toHaveLength(0);
  });

  it('does not validate while typing before the first submit, then re-validates on every change', async () => {
    renderWaitlist();
    await userEvent.type(email(), 'a');
    expect(email()).not.toHaveAttribute('aria-invalid');
    await userEvent.click(join());
    expect(email()).toHaveAttribute('aria-invalid', 'true');
    await userEvent.type(email(), '@b.co');
    expect(email()).not.toHaveAttribute('aria-invalid');
    expect(screen.getByText('Required')).toBeInTheDocument();
    await userEvent.type(about(), 'x');
    expect(screen.queryByText('Required')).not.toBeInTheDocument();
  });

  it('posts the fields, shows a spinner while waiting, then the joined view and sets the flag', async () => {
    let answer!: () => void;
    backend.respondWith(async (req, res) => {
      await new Promise<void>((resolve) => (answer = resolve));
      res.status(201).json({ email: 'zoë@example.org' });
    });
    renderWaitlist();
    await userEvent.type(email(), 'zoë@example.org');
    await userEvent.type(about(), 'github.com/zoe');
    await userEvent.click(join());

    await waitFor(() => expect(backend.received).toHaveLength(1));
    expect(join()).toBeDisabled();
    expect(join()).toHaveAttribute('aria-busy', 'true');
    expect(join().querySelector('.spinner')).not.toBeNull();
    expect(localStorage.getItem('subscribed')).toBeNull();

    answer();
    // focus moves in an effect after the view renders
    const congratulations = await screen.findByRole('heading', { name: 'Congratulations' });
    await waitFor(() => expect(congratulations).toHaveFocus());
    expect(screen.getByRole('status')).toHaveTextContent(JOINED);
    expect(link('Join patreon')).toHaveAttribute('href', 'https://www.patreon.com/artawower');
    expect(localStorage.getItem('subscribed')).toBe('true');
    expect(backend.received[0].fields).toEqual({
      email: 'zoë@example.org',
      description: 'github.com/zoe',
    });
  });

  it.each([
    [
      'the backend answers 500',
      async () => createApiClient({ baseUrl: backend.url }),
      () => backend.respondWith((req, res) => res.status(500).json({ error: 'down' })),
    ],
    [
      'nothing answers',
      async () => createApiClient({ baseUrl: `http://127.0.0.1:${await closedPort()}` }),
      () => {},
    ],
  ])('still ends in joined, with no error shown, when %s', async (_case, makeApi, arrange) => {
    arrange();
    renderWaitlist('/', await makeApi());
    await userEvent.type(email(), 'a@b.co');
    await userEvent.type(about(), 'me');
    await userEvent.click(join());
    // By role: the joined view shown, not the hidden copy the form carries for a returning visitor.
    expect(await screen.findByRole('status')).toHaveTextContent(
      /You are successfully joined to the wait list/,
    );
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(screen.queryByText(/status code|Network Error|down/)).not.toBeInTheDocument();
    expect(localStorage.getItem('subscribed')).toBe('true');
  });

  it('starts in joined when the flag is already set, without stealing focus', () => {
    localStorage.setItem('subscribed', 'true');
    renderWaitlist();
    expect(screen.getByRole('status')).toHaveTextContent(JOINED);
    expect(screen.queryByRole('textbox')).not.toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Congratulations' })).not.toHaveFocus();
  });

  // With double opt-in the joined view adds one sentence after the spec's text.
  it('asks to confirm the address in the joined view when signups are confirmed', () => {
    localStorage.setItem('subscribed', 'true');
    renderRoutes('/', { config: { confirmSignups: true } });
    const sentences = Array.from(
      screen.getByRole('status').querySelectorAll('p'),
      (p) => p.textContent,
    );
    expect(sentences).toEqual([
      JOINED,
      'Please confirm your address with the link we have mailed you.',
    ]);
  });

  it("keeps the joined view to the spec's text when signups are not confirmed", () => {
    localStorage.setItem('subscribed', 'true');
    renderRoutes('/', { config: { confirmSignups: false } });
    expect(
      Array.from(screen.getByRole('status').querySelectorAll('p'), (p) => p.textContent),
    ).toEqual([JOINED]);
  });

  it('prefills the email from ?email= and focuses the second field', () => {
    renderWaitlist('/?email=zo%C3%AB%40example.org');
    expect(email()).toHaveValue('zoë@example.org');
    expect(about()).toHaveFocus();
  });
});
