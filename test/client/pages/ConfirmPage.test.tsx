// '/confirm' as the server answers it: the GET shows one button and changes nothing, the
// POST confirms, and a link that does nothing says why, with its status.
import { screen, within } from '@testing-library/react';
import type { LinkRefusal } from '../../../shared/address-links';
import { link, pageHeading } from '../../support/screen';
import { expectRefusedLink, serve, serverContext } from './serve-address-page';

const REFUSALS: [LinkRefusal, number, RegExp][] = [
  ['malformed', 400, /This link is incomplete\. Copy the whole link/],
  ['invalid', 404, /^This link is not valid\.$/],
  ['expired', 410, /This link has expired\. Join the waitlist again/],
  ['spent', 410, /This link has been used already: your address is confirmed\./],
];

describe('the confirmation page', () => {
  it('shows a valid link one button, in a form that posts the token, and confirms nothing yet', async () => {
    const { context, asked } = serverContext();
    expect(await serve('/confirm?token=t0k3n', context)).toBe(200);
    expect(pageHeading('Confirm your address')).toBeInTheDocument();
    const button = screen.getByRole('button', { name: 'Confirm my address' });
    const form = button.closest('form')!;
    expect(form).toHaveAttribute('method', 'post');
    expect(form).toHaveAttribute('action', '/confirm');
    expect(form).toHaveFormValues({ token: 't0k3n' });
    expect(within(screen.getByRole('main')).getAllByRole('button')).toEqual([button]);
    expect(document.title).toBe('Confirm your address · OrgNote');
    expect(asked).toEqual(['checkLink confirm']);
  });

  it.each(REFUSALS)(
    'refuses the %s link with its message and status %i, and links back to the waitlist',
    async (refusal, status, message) => {
      const { context } = serverContext({ check: { ok: false, refusal } });
      expect(await serve('/confirm?token=t0k3n', context)).toBe(status);
      expectRefusedLink(message);
      expect(screen.queryByRole('button', { name: 'Confirm my address' })).not.toBeInTheDocument();
    },
  );

  it('confirms on the POST, with 200 even though the link is spent by then', async () => {
    // After an action the loader runs again, and the link it checks has just been used.
    const { context, asked } = serverContext({ check: { ok: false, refusal: 'spent' } });
    expect(await serve('/confirm', context, 'POST')).toBe(200);
    expect(pageHeading('Your address is confirmed')).toBeInTheDocument();
    expect(
      screen.getByText(/We will write to you when your invitation is ready\./),
    ).toBeInTheDocument();
    expect(asked[0]).toBe('confirm');
    expect(asked).not.toContain('leave');
  });

  it.each(REFUSALS)(
    'refuses the %s link on the POST too, with status %i',
    async (refusal, status, message) => {
      const { context } = serverContext({ use: { ok: false, refusal } });
      expect(await serve('/confirm', context, 'POST')).toBe(status);
      expect(screen.getByText(message)).toBeInTheDocument();
      expect(
        screen.queryByRole('heading', { name: 'Your address is confirmed' }),
      ).not.toBeInTheDocument();
    },
  );

  it('shows an outage of the store inside the layout, with 503', async () => {
    // What server/pages/address-pages.ts throws when the store cannot answer.
    const { context } = serverContext();
    context.checkLink = async () => {
      throw new Response(null, { status: 503, statusText: 'Service Unavailable' });
    };
    expect(await serve('/confirm?token=t0k3n', context)).toBe(503);
    expect(
      screen.getByRole('heading', { name: 'Unexpected Application Error!' }),
    ).toBeInTheDocument();
    expect(screen.getByText('503 Service Unavailable')).toBeInTheDocument();
    expect(screen.getByRole('banner')).toBeInTheDocument();
  });
});

describe('the confirmation page in Russian, at /ru/confirm', () => {
  it('shows the button in a form that posts to /ru/confirm', async () => {
    const { context } = serverContext();
    expect(await serve('/ru/confirm?token=t0k3n', context, 'GET', 'ru')).toBe(200);
    expect(pageHeading('Подтвердите адрес')).toBeInTheDocument();
    expect(
      screen.getByText(
        'Нажмите кнопку, чтобы подтвердить, что это ваш адрес: на него придёт приглашение.',
      ),
    ).toBeInTheDocument();
    const form = screen.getByRole('button', { name: 'Подтвердить адрес' }).closest('form')!;
    expect(form).toHaveAttribute('action', '/ru/confirm');
    expect(form).toHaveFormValues({ token: 't0k3n' });
    expect(document.title).toBe('Подтверждение адреса · OrgNote');
  });

  it('thanks for the confirmation', async () => {
    const { context } = serverContext();
    expect(await serve('/ru/confirm', context, 'POST', 'ru')).toBe(200);
    expect(pageHeading('Адрес подтверждён')).toBeInTheDocument();
    expect(
      screen.getByText('Спасибо! Мы напишем вам, когда приглашение будет готово.'),
    ).toBeInTheDocument();
  });

  it.each([
    [
      'malformed',
      400,
      'Ссылка неполная. Скопируйте её из письма целиком в адресную строку браузера.',
    ],
    ['invalid', 404, 'Ссылка недействительна.'],
    [
      'expired',
      410,
      'Срок действия ссылки истёк. Запишитесь в лист ожидания ещё раз, и мы пришлём новую.',
    ],
    ['spent', 410, 'Эта ссылка уже использована: ваш адрес подтверждён.'],
  ] as [LinkRefusal, number, string][])(
    'says why a %s link does nothing (%i), and leads back to /ru/',
    async (refusal, status, reason) => {
      const { context } = serverContext({ check: { ok: false, refusal } });
      expect(await serve('/ru/confirm?token=t0k3n', context, 'GET', 'ru')).toBe(status);
      expect(pageHeading('Ссылка не работает')).toBeInTheDocument();
      expect(screen.getByText(reason)).toBeInTheDocument();
      expect(link('Вернуться к листу ожидания')).toHaveAttribute('href', '/ru/');
      expect(screen.queryByRole('link', { name: /ссылку для выхода/ })).not.toBeInTheDocument();
    },
  );
});
