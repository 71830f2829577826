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

describe('privacy notice in Russian, at /ru/privacy', () => {
  it('says every section in Russian, names the contact and links to /ru/leave', async () => {
    renderRoutes('/ru/activate', {
      language: 'ru',
      config: { privacyContact: 'Privacy desk <privacy@orgnote.example>' },
    });
    // The link's words are the landing layout's; its address is this page's.
    const toPrivacy = screen
      .getAllByRole('link')
      .find((a) => a.getAttribute('href') === '/ru/privacy');
    await userEvent.click(toPrivacy!);
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Конфиденциальность' }),
    ).toBeInTheDocument();
    expect(document.title).toBe('Конфиденциальность · OrgNote');
    const notice = screen.getByRole('article');
    const headings = within(notice)
      .getAllByRole('heading', { level: 2 })
      .map((each) => each.textContent);
    expect(headings).toEqual([
      'Что хранится',
      'Зачем',
      'Как долго хранятся данные',
      'Кто видит эти данные',
      'Как выйти из листа ожидания',
      'Контакты',
    ]);
    expect(screen.getByText(/в поле «О себе \(или профиль на GitHub\)»/)).toBeInTheDocument();
    expect(link('Выйти из листа ожидания')).toHaveAttribute('href', '/ru/leave');
    expect(link('Выйти из листа ожидания').parentElement).toHaveTextContent(
      'Выйти из листа ожидания можно в любой момент: всё, что о вас хранится, при этом удаляется.',
    );
    expect(link('privacy@orgnote.example').parentElement).toHaveTextContent(
      'С вопросами о ваших данных пишите на адрес privacy@orgnote.example.',
    );
  });
});

// What is left after leaving: a keyed hash, and the address in older backups for as many days as
// the operator keeps them (BACKUP_RETENTION_DAYS), in each language's plural.
describe('what the notice says is left after leaving', () => {
  const afterLeaving = async (base: '' | '/ru', language: 'en' | 'ru', days: number) => {
    renderRoutes(`${base}/activate`, { language, config: { backupRetentionDays: days } });
    const toPrivacy = screen
      .getAllByRole('link')
      .find((a) => a.getAttribute('href') === `${base}/privacy`);
    await userEvent.click(toPrivacy!);
    await screen.findByRole('heading', { level: 1, name: /^(Privacy|Конфиденциальность)$/ });
    const howLong = screen.getByRole('heading', {
      level: 2,
      name: language === 'en' ? 'How long' : 'Как долго хранятся данные',
    });
    return howLong.parentElement!.querySelectorAll('p')[1].textContent;
  };

  it.each([
    [7, 'at most 7 days later.'],
    [1, 'at most a day later.'],
  ])('in English, with backups kept %i day(s)', async (days, end) => {
    const text = await afterLeaving('', 'en', days);
    expect(text).toMatch(/^When you leave or your address is erased, the site keeps only a keyed/);
    expect(text).toContain('importing an old list cannot add you again');
    expect(text.endsWith(end)).toBe(true);
  });

  it.each([
    [7, 'не дольше 7\u00a0дней.'],
    [1, 'не дольше 1\u00a0день.'],
    [3, 'не дольше 3\u00a0дня.'],
    [21, 'не дольше 21\u00a0день.'],
  ])('in Russian, with backups kept %i day(s)', async (days, end) => {
    const text = await afterLeaving('/ru', 'ru', days);
    expect(text).toContain('импорт старого списка не вернул вас в лист');
    expect(text.endsWith(end)).toBe(true);
  });
});
