// The landing page and the waitlist form under /ru/: every word the page shows is the Russian
// catalog's, the form's own checks speak Russian, and a refusal the API answers with a code (a
// real multer backend on 127.0.0.1) is said in Russian too, whatever the English `error` says.
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createApiClient } from '../../../shared/api';
import { CATALOGS } from '../../../shared/messages';
import { backendForEachTest } from '../../support/backend';
import { renderRoutes } from '../../support/render-route';

const ru = CATALOGS.ru.site;
const backend = backendForEachTest();
beforeEach(() => {
  localStorage.clear();
});

const renderRussian = () =>
  renderRoutes('/ru/', { language: 'ru', api: createApiClient({ baseUrl: backend.url }) });
const email = () => screen.getByLabelText('Электронная почта');
const about = () => screen.getByLabelText('О себе (или профиль на GitHub)');
const join = () => screen.getByRole('button', { name: 'Записаться' });

describe('the landing page in Russian', () => {
  it('shows the Russian words, and links the pages under /ru/', async () => {
    renderRussian();
    expect(
      screen.getByRole('heading', {
        level: 1,
        name: ru.tagline_,
      }),
    ).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Записаться в лист ожидания' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Возможности' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Всё\u00a0— простой текст' })).toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'Пример заметки в org-mode' })).toHaveTextContent(
      '* Почему простой текст',
    );
    expect(screen.getByRole('img', { name: 'Логотип OrgNote' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Меню' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Конфиденциальность' })).toHaveAttribute(
      'href',
      '/ru/privacy',
    );
    expect(screen.getByRole('link', { name: 'Выйти из листа ожидания' })).toHaveAttribute(
      'href',
      '/ru/leave',
    );
    const footer = screen.getByRole('contentinfo');
    expect(within(footer).getByRole('heading', { name: 'Контакты' })).toBeInTheDocument();
    expect(within(footer).getByText(/© 2023 OrgNote\. Свободное/)).toBeInTheDocument();
    // The badges' words; their kind is still the style.
    expect(screen.getAllByText('в работе')[0]).toHaveClass('badge', 'badge-wip');
    await waitFor(() => expect(document.title).toBe('Запись в лист ожидания · OrgNote'));
  });

  it('shows the Russian checks after an empty submit, and sends nothing', async () => {
    renderRussian();
    await userEvent.click(join());
    expect(screen.getByText('Укажите адрес электронной почты')).toBeInTheDocument();
    expect(screen.getByText('Заполните это поле')).toBeInTheDocument();
    expect(email()).toHaveAttribute('aria-invalid', 'true');
    expect(backend.received).toHaveLength(0);
  });

  it.each([
    [
      { code: 'domain-refused' },
      "Addresses at this domain can't join: please use your own address",
      ru.domainRefused_,
    ],
    [
      { code: 'domain-not-allowed', domains: ['example.org', 'bücher.de'] },
      'Only addresses at example.org or bücher.de can join',
      'Записаться можно только с адресом на домене example.org или bücher.de',
    ],
  ])('says a refusal with a code (%j) in Russian, under its field', async (code, error, said) => {
    backend.respondWith((req, res) => res.status(400).json({ error, field: 'email', ...code }));
    renderRussian();
    await userEvent.type(email(), 'someone@mailinator.com');
    await userEvent.type(about(), 'github.com/someone');
    await userEvent.click(join());
    expect(await screen.findByRole('alert')).toHaveTextContent(said);
    expect(email()).toHaveAccessibleDescription(said);
    expect(localStorage.getItem('subscribed')).toBeNull();
    expect(backend.received.map((r) => r.fields?.language)).toEqual(['ru']);
  });

  it("shows the API's English sentence for a code it has no words for", async () => {
    backend.respondWith((req, res) =>
      res.status(400).json({ error: 'Something new', field: 'email', code: 'from-the-future' }),
    );
    renderRussian();
    await userEvent.type(email(), 'a@b.co');
    await userEvent.type(about(), 'me');
    await userEvent.click(join());
    expect(await screen.findByRole('alert')).toHaveTextContent('Something new');
  });

  it('joins in Russian', async () => {
    backend.respondWith((req, res) => res.status(201).json({ email: 'a@b.co' }));
    renderRussian();
    await userEvent.type(email(), 'a@b.co');
    await userEvent.type(about(), 'me');
    await userEvent.click(join());
    expect(await screen.findByRole('status')).toHaveTextContent(
      'Вы записаны в лист ожидания. Хотите получить приглашение быстрее? Поддержите проект на Patreon',
    );
    expect(screen.getByRole('heading', { name: 'Поздравляем!' })).toBeInTheDocument();
  });
});
