// '/leave' as the server answers it: the link from a mail shows what leaving erases and
// one button; without a token, a form that asks for such a link and answers the same for anyone.
import { screen, within } from '@testing-library/react';
import { RouterContextProvider } from 'react-router';
import { routes } from '../../../client/routes';
import type { LeaveLinkRefusal, LinkRefusal } from '../../../shared/address-links';
import { link, pageHeading } from '../../support/screen';
import { expectRefusedLink, serve, serverContext } from './serve-address-page';

const ERASED = [
  'your address and what you wrote about yourself;',
  'your place on the waitlist;',
  'any activation key we sent you;',
  'mail still waiting to be sent to you.',
];
const SUBSCRIPTION = 'Your free subscription is active: leaving ends it.';
const SENT = 'If this address is on the waitlist, we have sent it a link. Open it to leave.';

const main = () => within(screen.getByRole('main'));

describe('the leave page, from a link', () => {
  it('lists what leaving erases, with one button in a form that posts the token and the one-click field', async () => {
    const { context, asked } = serverContext();
    expect(await serve('/leave?token=t0k3n%2B', context)).toBe(200);
    expect(pageHeading('Leave the waitlist')).toBeInTheDocument();
    expect(
      main()
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(ERASED);
    expect(screen.queryByText(SUBSCRIPTION)).not.toBeInTheDocument();
    const button = main().getByRole('button', { name: 'Leave the waitlist' });
    const form = button.closest('form')!;
    expect(form).toHaveAttribute('method', 'post');
    // The token in the query too: it tells the server's action a leave from a request for a link.
    expect(form).toHaveAttribute('action', '/leave?token=t0k3n%2B');
    expect(form).toHaveFormValues({ token: 't0k3n+', 'List-Unsubscribe': 'One-Click' });
    expect(main().getAllByRole('button')).toEqual([button]);
    expect(document.title).toBe('Leave the waitlist · OrgNote');
    expect(asked).toEqual(['checkLink leave']);
  });

  it('says, emphasised, that leaving ends an active free subscription', async () => {
    const { context } = serverContext({ check: { ok: true, subscriptionActive: true } });
    await serve('/leave?token=t0k3n', context);
    expect(screen.getByText(SUBSCRIPTION).tagName).toBe('STRONG');
  });

  it.each<[LinkRefusal, number, RegExp]>([
    ['malformed', 400, /This link is incomplete\. Copy the whole link/],
    [
      'invalid',
      404,
      /This link is not valid\. If you followed a link from our mail, you may have left the waitlist already\./,
    ],
    ['expired', 410, /This link has expired\. Ask for a new one/],
    ['spent', 410, /This link has been used already/],
  ])(
    'refuses the %s link with its message and status %i, and offers a new link',
    async (refusal, status, message) => {
      const { context } = serverContext({ check: { ok: false, refusal } });
      expect(await serve('/leave?token=t0k3n', context)).toBe(status);
      expectRefusedLink(message);
      expect(link('Ask for a new link to leave')).toHaveAttribute('href', '/leave');
      expect(main().queryByRole('button')).not.toBeInTheDocument();
    },
  );

  it('leaves on the POST with the token, with 200 even though the link is gone by then', async () => {
    const { context, asked } = serverContext({ check: { ok: false, refusal: 'invalid' } });
    expect(await serve('/leave?token=t0k3n', context, 'POST')).toBe(200);
    expect(pageHeading('You have left the waitlist')).toBeInTheDocument();
    expect(
      screen.getByText(/Everything we kept about your address is erased\./),
    ).toBeInTheDocument();
    expect(asked[0]).toBe('leave');
    expect(asked).not.toContain('requestLeaveLink');
  });

  it('refuses the POST of an expired link with 410', async () => {
    const { context } = serverContext({ use: { ok: false, refusal: 'expired' } });
    expect(await serve('/leave?token=t0k3n', context, 'POST')).toBe(410);
    expect(screen.getByText(/This link has expired/)).toBeInTheDocument();
    expect(
      screen.queryByRole('heading', { name: 'You have left the waitlist' }),
    ).not.toBeInTheDocument();
  });
});

describe('the leave page, without a token', () => {
  const field = () => screen.getByLabelText('Email address');

  it('asks for the address in a form that posts to /leave, and asks the server nothing yet', async () => {
    const { context, asked } = serverContext();
    expect(await serve('/leave', context)).toBe(200);
    expect(pageHeading('Leave the waitlist')).toBeInTheDocument();
    expect(field()).toHaveAttribute('type', 'email');
    expect(field()).toHaveAttribute('name', 'email');
    expect(field()).toHaveAttribute('autocomplete', 'email');
    expect(field()).toBeRequired();
    expect(field()).not.toHaveAttribute('aria-invalid');
    const form = main().getByRole('button', { name: 'Send me a link' }).closest('form')!;
    expect(form).toHaveAttribute('method', 'post');
    expect(form).toHaveAttribute('action', '/leave');
    expect(form).toContainElement(field());
    expect(document.title).toBe('Leave the waitlist · OrgNote');
    expect(asked).toEqual([]);
  });

  it('answers the POST the same way whatever the server found', async () => {
    const { context, asked } = serverContext({ request: { ok: true } });
    expect(await serve('/leave', context, 'POST')).toBe(200);
    expect(screen.getByText(SENT)).toBeInTheDocument();
    expect(screen.queryByLabelText('Email address')).not.toBeInTheDocument();
    expect(asked).toEqual(['requestLeaveLink']);
  });

  it("shows the form again with the typed address and the error as the field's, with the status", async () => {
    const { context } = serverContext({
      request: { ok: false, email: 'zoë@example', refusal: 'not-an-address', status: 400 },
    });
    expect(await serve('/leave', context, 'POST')).toBe(400);
    expect(field()).toHaveValue('zoë@example');
    expect(field()).toHaveAttribute('aria-invalid', 'true');
    expect(field()).toHaveClass('field-input-error');
    expect(field()).toHaveAccessibleDescription('This is not an email address');
    expect(screen.getByRole('alert')).toHaveTextContent('This is not an email address');
    expect(screen.queryByText(SENT)).not.toBeInTheDocument();
  });

  it('keeps the status of a waitlist that cannot answer now', async () => {
    const { context } = serverContext({
      request: { ok: false, email: 'a@b.co', refusal: 'unavailable', status: 503 },
    });
    expect(await serve('/leave', context, 'POST')).toBe(503);
    expect(field()).toHaveAccessibleDescription(
      'The waitlist is unavailable right now; please try again shortly',
    );
  });
});

describe('the address pages in the browser', () => {
  // A client-side navigation has no server operations in its context (the browser's router gives
  // every loader an empty RouterContextProvider): the page is loaded from the server instead.
  it.each(['confirm', 'leave'])('load /%s as a document', async (id) => {
    const route = routes[0].children!.find((child) => child.id === id)!;
    const { loader } = await (
      route.lazy as () => Promise<{ loader: (args: unknown) => Promise<unknown> }>
    )();
    const url = `http://site.test/${id}?token=t0k3n`;
    const context = new RouterContextProvider();
    const thrown = await loader({ request: new Request(url), params: {}, context }).catch(
      (err: unknown) => err,
    );
    expect(thrown).toBeInstanceOf(Response);
    const redirect = thrown as Response;
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('Location')).toBe(url);
    expect(redirect.headers.get('X-Remix-Reload-Document')).toBe('true');
  });
});

describe('the leave page in Russian, at /ru/leave', () => {
  const SENT_RU =
    'Если этот адрес есть в листе ожидания, мы отправили на него ссылку. ' +
    'Перейдите по ней, чтобы выйти из листа.';

  it('lists what leaving erases, and its button posts to /ru/leave with the token', async () => {
    const { context } = serverContext({ check: { ok: true, subscriptionActive: true } });
    expect(await serve('/ru/leave?token=t0k3n%2B', context, 'GET', 'ru')).toBe(200);
    expect(document.title).toBe('Выход из листа ожидания · OrgNote');
    expect(pageHeading('Выйти из листа ожидания')).toBeInTheDocument();
    expect(screen.getByText('При выходе будут удалены:')).toBeInTheDocument();
    expect(
      main()
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual([
      'ваш адрес и то, что вы написали о себе;',
      'ваше место в листе ожидания;',
      'ключ активации, если мы его вам уже отправили;',
      'письма, которые ещё ждут отправки.',
    ]);
    expect(
      screen.getByText('Ваша бесплатная подписка активна: при выходе она будет отключена.'),
    ).toBeInTheDocument();
    const form = main().getByRole('button', { name: 'Выйти из листа ожидания' }).closest('form')!;
    expect(form).toHaveAttribute('action', '/ru/leave?token=t0k3n%2B');
  });

  it('says the address has left', async () => {
    const { context } = serverContext();
    expect(await serve('/ru/leave?token=t0k3n', context, 'POST', 'ru')).toBe(200);
    expect(pageHeading('Вы вышли из листа ожидания')).toBeInTheDocument();
    expect(
      screen.getByText(
        'Всё, что мы хранили о вашем адресе, удалено. Возвращайтесь, когда захотите.',
      ),
    ).toBeInTheDocument();
  });

  it.each([
    [
      'malformed',
      400,
      'Ссылка неполная. Скопируйте её из письма целиком в адресную строку браузера.',
    ],
    [
      'invalid',
      404,
      'Ссылка недействительна. Если вы перешли по ссылке из нашего письма, возможно, вы уже ' +
        'вышли из листа ожидания.',
    ],
    ['expired', 410, 'Срок действия ссылки истёк. Запросите новую, и мы пришлём её вам на почту.'],
    ['spent', 410, 'Эта ссылка уже использована: адрес удалён из листа ожидания.'],
  ] as [LinkRefusal, number, string][])(
    'says why a %s link does nothing (%i), with a way to ask for a new one',
    async (refusal, status, reason) => {
      const { context } = serverContext({ check: { ok: false, refusal } });
      expect(await serve('/ru/leave?token=t0k3n', context, 'GET', 'ru')).toBe(status);
      expect(pageHeading('Ссылка не работает')).toBeInTheDocument();
      expect(screen.getByText(reason)).toBeInTheDocument();
      expect(link('Запросить новую ссылку для выхода')).toHaveAttribute('href', '/ru/leave');
      expect(link('Вернуться к листу ожидания')).toHaveAttribute('href', '/ru/');
    },
  );

  it('asks for the address in a form that posts to /ru/leave', async () => {
    const { context } = serverContext();
    expect(await serve('/ru/leave', context, 'GET', 'ru')).toBe(200);
    expect(pageHeading('Выйти из листа ожидания')).toBeInTheDocument();
    expect(
      screen.getByText(
        'Введите адрес, с которым вы записывались, и мы пришлём на него ссылку для выхода.',
      ),
    ).toBeInTheDocument();
    const field = screen.getByLabelText('Адрес электронной почты');
    expect(field.closest('form')).toHaveAttribute('action', '/ru/leave');
    expect(screen.getByRole('button', { name: 'Прислать ссылку' })).toBeInTheDocument();
  });

  it('answers that a link was mailed', async () => {
    const { context } = serverContext({ request: { ok: true } });
    expect(await serve('/ru/leave', context, 'POST', 'ru')).toBe(200);
    expect(pageHeading('Проверьте почту')).toBeInTheDocument();
    expect(screen.getByText(SENT_RU)).toBeInTheDocument();
  });

  it.each([
    ['required', 400, 'Укажите адрес электронной почты'],
    ['not-an-address', 400, 'Это не похоже на адрес электронной почты'],
    ['busy', 503, 'Сейчас слишком много писем ждёт отправки, попробуйте ещё раз позже'],
    ['unavailable', 503, 'Лист ожидания сейчас недоступен, попробуйте ещё раз чуть позже'],
  ] as [LeaveLinkRefusal, number, string][])(
    'says under the field why asking was refused (%s, %i)',
    async (refusal, status, message) => {
      const { context } = serverContext({
        request: { ok: false, email: 'zoë@example', refusal, status },
      });
      expect(await serve('/ru/leave', context, 'POST', 'ru')).toBe(status);
      const field = screen.getByLabelText('Адрес электронной почты');
      expect(field).toHaveValue('zoë@example');
      expect(field).toHaveAccessibleDescription(message);
    },
  );
});
