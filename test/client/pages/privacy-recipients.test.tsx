// '/privacy' in the browser names the hosts webhooks send addresses to, from the public config the
// server embedded: the server's HTML hydrates without a mismatch (the console guard fails the test
// on one), and a visitor who navigates to the page reads the same sentence.
import { act } from 'react';
import { hydrateRoot } from 'react-dom/client';
import { renderToString } from 'react-dom/server';
import { matchRoutes } from 'react-router';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { routes } from '../../../client/routes';
import { readEmbeddedPublicConfig } from '../../../client/public-config';
import { DEFAULT_PUBLIC_CONFIG } from '../../../shared/public-config';
import { CATALOGS } from '../../../shared/messages';
import { whoSeesIt as wordedFor } from '../../../client/pages/privacy-notice';
import { appTree, renderRoutes } from '../../support/render-route';
import { link } from '../../support/screen';

const HOSTS = { names: ['hooks.example.com', 'crm.example.org'], unnamed: 0 };
const NAMING_HOSTS =
  'The people who run this site, and the services they send your e-mail address to when you ' +
  'join the waitlist or your place on it changes: hooks.example.com and crm.example.org. It is ' +
  'not given or sold to anyone else, and the site has no tracking, analytics or advertising.';

/** The paragraph under "Who sees it". */
function whoSeesIt(): string | null {
  const heading = screen.getByRole('heading', { level: 2, name: 'Who sees it' });
  return heading.nextElementSibling?.textContent ?? null;
}

afterEach(() => {
  document.body.innerHTML = '';
});

it('hydrates the server’s page with the hosts from the embedded public config', async () => {
  // The browser loads the page's lazy route before hydrating (client/hydrate.tsx).
  for (const { route } of matchRoutes(routes, '/privacy') ?? [])
    if (typeof route.lazy === 'function')
      Object.assign(route, await route.lazy(), { lazy: undefined });

  const container = document.createElement('div');
  document.body.appendChild(container);
  const served = { ...DEFAULT_PUBLIC_CONFIG, addressRecipients: HOSTS };
  container.innerHTML = renderToString(appTree('/privacy', { config: served }).tree);
  expect(whoSeesIt()).toBe(NAMING_HOSTS);

  // What the server embeds beside the root, read back as the browser entry does.
  const embedded = document.createElement('script');
  embedded.id = 'public-config';
  embedded.type = 'application/json';
  embedded.textContent = JSON.stringify(served);
  document.body.appendChild(embedded);
  const config = readEmbeddedPublicConfig(document);
  await act(async () => {
    hydrateRoot(container, appTree('/privacy', { config }).tree);
  });
  expect(whoSeesIt()).toBe(NAMING_HOSTS);
});

it('reads the same sentence after following the Privacy link', async () => {
  renderRoutes('/activate', { config: { addressRecipients: HOSTS } });
  await userEvent.click(link('Privacy'));
  await screen.findByRole('heading', { level: 1, name: 'Privacy' });
  expect(whoSeesIt()).toBe(NAMING_HOSTS);
});

it('says only the operators see the data while no host receives addresses', async () => {
  renderRoutes('/activate');
  await userEvent.click(link('Privacy'));
  await screen.findByRole('heading', { level: 1, name: 'Privacy' });
  expect(whoSeesIt()).toBe(
    'Only the people who run this site. It is not given or sold to anyone else, and the site ' +
      'has no tracking, analytics or advertising.',
  );
});

describe('who sees the data, worded in each language', () => {
  const recipients = (names: string[], unnamed: number) => ({ names, unnamed });
  const en = (list: string) =>
    'The people who run this site, and the services they send your e-mail address to when you ' +
    `join the waitlist or your place on it changes: ${list}. It is not given or sold to anyone ` +
    'else, and the site has no tracking, analytics or advertising.';
  const ru = (list: string) =>
    'Администраторы сайта, а также сервисы, которым они передают ваш адрес электронной почты, ' +
    `когда вы записываетесь в лист ожидания или когда ваше место в нём меняется: ${list}. ` +
    'Больше никому данные не передаются и не продаются, а на сайте нет ни отслеживания, ' +
    'ни аналитики, ни рекламы.';

  it.each([
    [
      [],
      0,
      'Only the people who run this site. It is not given or sold to anyone else, and the site has no tracking, analytics or advertising.',
    ],
    [['Sheet'], 0, en('Sheet')],
    [['Sheet', 'Our CRM'], 1, en('Sheet, Our CRM, and a service of theirs')],
    [['Sheet'], 2, en('Sheet and 2 services of theirs')],
    [[], 1, en('a service of theirs')],
    [[], 2, en('2 services of theirs')],
    [[], 5, en('5 services of theirs')],
  ])('in English: %j and %i unnamed', (names, unnamed, sentence) => {
    expect(wordedFor(CATALOGS.en.privacy, 'en', recipients(names, unnamed))).toBe(sentence);
  });

  it.each([
    [
      [],
      0,
      'Только администраторы сайта. Больше никому данные не передаются и не продаются, а на сайте нет ни отслеживания, ни аналитики, ни рекламы.',
    ],
    [['Sheet'], 0, ru('Sheet')],
    [['Sheet', 'Our CRM'], 0, ru('Sheet и Our CRM')],
    [['Sheet', 'Our CRM'], 1, ru('Sheet, Our CRM и ещё один сервис')],
    [['Sheet'], 2, ru('Sheet и ещё 2\u00a0сервиса')],
    [['Sheet'], 5, ru('Sheet и ещё 5\u00a0сервисов')],
    [['Sheet'], 21, ru('Sheet и ещё 21\u00a0сервис')],
    [[], 1, ru('один сервис')],
    [[], 2, ru('2\u00a0сервиса')],
    [[], 5, ru('5\u00a0сервисов')],
  ])('in Russian: %j and %i unnamed', (names, unnamed, sentence) => {
    expect(wordedFor(CATALOGS.ru.privacy, 'ru', recipients(names, unnamed))).toBe(sentence);
  });

  it('reads the Russian sentence on /ru/privacy', async () => {
    renderRoutes('/ru/privacy', {
      language: 'ru',
      config: { addressRecipients: recipients(['Sheet'], 2) },
    });
    await screen.findByRole('heading', { level: 1, name: 'Конфиденциальность' });
    const heading = screen.getByRole('heading', { level: 2, name: 'Кто видит эти данные' });
    expect(heading.nextElementSibling?.textContent).toBe(ru('Sheet и ещё 2\u00a0сервиса'));
  });
});
