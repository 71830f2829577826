// The waitlist form with JavaScript when the site refuses the address's domain: the server's
// message shows under the email field, as the form's own validation messages do, and the form
// stays; the visitor learns why instead of seeing "joined". Other failures still end in joined.
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { REFUSED_DOMAIN } from '../../../server/guard/domains';
import { createApiClient } from '../../../shared/api';
import { backendForEachTest } from '../../support/backend';
import { renderRoutes } from '../../support/render-route';

const backend = backendForEachTest();
beforeEach(() => {
  localStorage.clear();
});

const email = () => screen.getByLabelText('Email');
const about = () => screen.getByLabelText('About me (or github profile)');
const join = () => screen.getByRole('button', { name: 'Join' });

/** As POST /api/subscriptions answers an address at a refused domain (server/api/subscriptions). */
function refuseThrowaways() {
  backend.respondWith((req, res) => {
    const address = String(req.body.email);
    if (address.endsWith('@mailinator.com'))
      res.status(400).json({ error: REFUSED_DOMAIN, field: 'email' });
    else res.status(201).json({ email: address });
  });
}

async function submit(address: string) {
  await userEvent.clear(email());
  await userEvent.type(email(), address);
  await userEvent.click(join());
}

describe('an address at a refused domain', () => {
  it('gets the message under the email field, and the form stays until an address joins', async () => {
    refuseThrowaways();
    renderRoutes('/', { api: createApiClient({ baseUrl: backend.url }) });
    await userEvent.type(about(), 'github.com/someone');
    await submit('someone@mailinator.com');

    expect(await screen.findByRole('alert')).toHaveTextContent(REFUSED_DOMAIN);
    expect(email()).toHaveAttribute('aria-invalid', 'true');
    expect(email()).toHaveAccessibleDescription(REFUSED_DOMAIN);
    await waitFor(() => expect(email()).toHaveFocus());
    expect(join()).not.toHaveAttribute('aria-busy', 'true');
    expect(screen.queryByRole('heading', { name: 'Congratulations' })).not.toBeInTheDocument();
    expect(localStorage.getItem('subscribed')).toBeNull();
    expect(backend.received).toHaveLength(1);

    // Changing the address checks the form again, as after any submit: the message goes.
    await userEvent.type(email(), 'x');
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(email()).not.toHaveAttribute('aria-invalid');

    await submit('someone@example.org');
    expect(await screen.findByRole('status')).toHaveTextContent(
      /You are successfully joined to the wait list/,
    );
    expect(localStorage.getItem('subscribed')).toBe('true');
    expect(backend.received.map((r) => r.fields?.email)).toEqual([
      'someone@mailinator.com',
      'someone@example.org',
    ]);
  });

  it.each([
    ['a 400 that names no field', 400, { error: 'Send the signup again' }],
    ['a field the form does not have', 400, { error: 'No', field: 'website' }],
    ['another status', 403, { error: REFUSED_DOMAIN, field: 'email' }],
  ])('is not what %s means: that still ends in joined', async (_case, status, body) => {
    backend.respondWith((req, res) => res.status(status).json(body));
    renderRoutes('/', { api: createApiClient({ baseUrl: backend.url }) });
    await userEvent.type(about(), 'me');
    await submit('a@b.co');
    expect(await screen.findByRole('status')).toHaveTextContent(
      /You are successfully joined to the wait list/,
    );
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(localStorage.getItem('subscribed')).toBe('true');
  });
});
